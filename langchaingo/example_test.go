package byheartlangchaingo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/byheart/byheart"
	byheartlangchaingo "github.com/byheart/byheart/langchaingo"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/fake"
)

// A conversation chain with byheart in place of memory.NewConversationBuffer().
// The fake model stands in for a real one.
func Example() {
	ctx := context.Background()
	llm := fake.NewFakeLLM([]string{"Noted: 55 euro a month.", "You decided on 55 euro a month."})
	mem := byheartlangchaingo.New(byheart.Options{})
	chain := chains.NewConversation(llm, mem)

	for _, question := range []string{"We decided on 55 euro a month.", "What did we decide?"} {
		answer, err := chains.Run(ctx, chain, question)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(answer)
	}

	// What the chain's prompt receives as {{.history}} for a third question.
	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "And the annual plan?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vars["history"])
	// Output:
	// Noted: 55 euro a month.
	// You decided on 55 euro a month.
	// Human: We decided on 55 euro a month.
	// AI: Noted: 55 euro a month.
	// Human: What did we decide?
	// AI: You decided on 55 euro a month.
}

// Continue a conversation kept in an existing byheart.Memory.
func ExampleResume() {
	opts := byheart.Options{}
	conv := byheart.New(opts) // or byheart.FromJSON(saved, opts)
	if _, err := conv.Append(byheart.User, "My name is Ada."); err != nil {
		log.Fatal(err)
	}
	mem := byheartlangchaingo.Resume(conv, opts)

	vars, err := mem.LoadMemoryVariables(context.Background(), map[string]any{"input": "What is my name?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(vars["history"])
	fmt.Println(mem.Conversation() == conv)
	// Output:
	// Human: My name is Ada.
	// true
}
