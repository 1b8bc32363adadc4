package byheartanthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/byheart/byheart"
	byheartanthropic "github.com/byheart/byheart/anthropic"
)

// A chat turn: compose the context for the user's message, send it, and
// remember the exchange. The client reads ANTHROPIC_API_KEY.
func Example() {
	ctx := context.Background()
	client := anthropic.NewClient()
	mem := byheart.New(byheart.Options{})

	ask := func(question string) (string, error) {
		res, err := mem.Compose(ctx, question)
		if err != nil {
			return "", err
		}
		msgs, err := byheartanthropic.Messages(res)
		if err != nil {
			return "", err
		}
		reply, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model:     anthropic.ModelClaudeSonnet4_6,
			MaxTokens: 1024,
			System:    byheartanthropic.System("You are a concise assistant."),
			Messages:  msgs,
		})
		if err != nil {
			return "", err
		}
		answer := reply.Content[0].Text
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
// the selection was made, outside material, and the query. The breakpoints land
// on the memory block (StableUpto) and on the end of the tail.
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
	msgs, err := byheartanthropic.Messages(res)
	if err != nil {
		log.Fatal(err)
	}
	raw, err := json.Marshal(msgs)
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.String())
	// Output:
	// [
	//   {
	//     "content": [
	//       {
	//         "text": "[memory] user: we decided on 55 euro a month",
	//         "cache_control": {
	//           "type": "ephemeral"
	//         },
	//         "type": "text"
	//       },
	//       {
	//         "text": "Is there an annual plan?",
	//         "type": "text"
	//       }
	//     ],
	//     "role": "user"
	//   },
	//   {
	//     "content": [
	//       {
	//         "text": "Yes, at a discount.",
	//         "cache_control": {
	//           "type": "ephemeral"
	//         },
	//         "type": "text"
	//       }
	//     ],
	//     "role": "assistant"
	//   },
	//   {
	//     "content": [
	//       {
	//         "text": "[outside material] price list: 550 euro a year",
	//         "type": "text"
	//       },
	//       {
	//         "text": "How much is the annual plan?",
	//         "type": "text"
	//       }
	//     ],
	//     "role": "user"
	//   }
	// ]
}

// A system prompt that is cached with the conversation, here for an hour.
func ExampleSystem() {
	system := byheartanthropic.System("You are a concise assistant.",
		byheartanthropic.WithTTL(anthropic.CacheControlEphemeralTTLTTL1h))
	raw, err := json.Marshal(system)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(raw))
	// Output:
	// [{"text":"You are a concise assistant.","cache_control":{"ttl":"1h","type":"ephemeral"},"type":"text"}]
}
