package byheartopenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/byheart/byheart"
	byheartopenai "github.com/byheart/byheart/openai"
	"github.com/openai/openai-go/v3"
)

// A chat turn: compose the context for the user's message, send it after a
// fixed system message, and remember the exchange. The client reads
// OPENAI_API_KEY.
func Example() {
	ctx := context.Background()
	client := openai.NewClient()
	mem := byheart.New(byheart.Options{})

	ask := func(question string) (string, error) {
		res, err := mem.Compose(ctx, question)
		if err != nil {
			return "", err
		}
		msgs, err := byheartopenai.Messages(res)
		if err != nil {
			return "", err
		}
		completion, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:          openai.ChatModelGPT5_5,
			Messages:       append([]openai.ChatCompletionMessageParamUnion{byheartopenai.System("You are a concise assistant.")}, msgs...),
			PromptCacheKey: openai.String("conversation-42"),
		})
		if err != nil {
			return "", err
		}
		answer := completion.Choices[0].Message.Content
		if _, err := mem.Append(byheart.User, question); err != nil {
			return "", err
		}
		if _, err := mem.Append(byheart.Assistant, answer); err != nil {
			return "", err
		}
		return answer, nil
	}

	answer, err := ask("What did we decide about pricing?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}

// A composition above the budget: the memory block, the tail of turns since
// the selection was made, outside material, and the query, one message each.
func ExampleMessages() {
	res := byheart.Result{
		StableUpto: 0,
		Messages: []byheart.Message{
			{Role: byheart.User, Parts: []byheart.Part{
				{Text: "[memory] user: we decided on 55 euro a month"},
				{Text: "Is there an annual plan?"},
			}},
			{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "Yes, at a discount."}}},
			{Role: byheart.User, Parts: []byheart.Part{
				{Text: "[outside material] price list: 550 euro a year"},
				{Text: "How much is the annual plan?"},
			}},
		},
	}
	msgs, err := byheartopenai.Messages(res)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		raw, err := json.Marshal(m)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(raw))
	}
	// Output:
	// {"content":"[memory] user: we decided on 55 euro a month","role":"user"}
	// {"content":"Is there an annual plan?","role":"user"}
	// {"content":"Yes, at a discount.","role":"assistant"}
	// {"content":"[outside material] price list: 550 euro a year","role":"user"}
	// {"content":"How much is the annual plan?","role":"user"}
}

// The same composition with explicit breakpoints, for models that match cached
// prefixes only at breakpoints: the memory block (StableUpto) and the end of
// the log that follows it, the tail's answer, are marked; outside material and
// the query are not.
func ExampleWithBreakpoints() {
	res := byheart.Result{
		StableUpto: 0,
		Messages: []byheart.Message{
			{Role: byheart.User, Parts: []byheart.Part{
				{Text: "[memory] user: we decided on 55 euro a month"},
				{Text: "Is there an annual plan?"},
			}},
			{Role: byheart.Assistant, Parts: []byheart.Part{{Text: "Yes, at a discount."}}},
			{Role: byheart.User, Parts: []byheart.Part{
				{Text: "[outside material] price list: 550 euro a year"},
				{Text: "How much is the annual plan?"},
			}},
		},
	}
	msgs, err := byheartopenai.Messages(res, byheartopenai.WithBreakpoints())
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		raw, err := json.Marshal(m)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(raw))
	}
	// Output:
	// {"content":[{"text":"[memory] user: we decided on 55 euro a month","prompt_cache_breakpoint":{"mode":"explicit"},"type":"text"}],"role":"user"}
	// {"content":[{"text":"Is there an annual plan?","type":"text"}],"role":"user"}
	// {"content":[{"text":"Yes, at a discount.","prompt_cache_breakpoint":{"mode":"explicit"},"type":"text"}],"role":"assistant"}
	// {"content":[{"text":"[outside material] price list: 550 euro a year","type":"text"}],"role":"user"}
	// {"content":[{"text":"How much is the annual plan?","type":"text"}],"role":"user"}
}
