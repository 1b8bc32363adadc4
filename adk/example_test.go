package byheartadk_test

import (
	"context"
	"log"
	"os"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model/gemini"
	"google.golang.org/adk/v2/plugin"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"

	"github.com/byheart/byheart"
	byheartadk "github.com/byheart/byheart/adk"
	"github.com/byheart/byheart/store/sqlite"
)

// An agent server whose conversations live in a SQLite file: a restart,
// or another replica on the same store, picks each session up where it
// was, with the same cached prefix. The plugin is the one line that adds
// byheart.
func Example_server() {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, "conversations.db", sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	llm, err := gemini.NewModel(ctx, "gemini-2.5-flash", &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY")})
	if err != nil {
		log.Fatal(err)
	}
	helper, err := llmagent.New(llmagent.Config{Name: "helper", Model: llm, Instruction: "You are a concise assistant."})
	if err != nil {
		log.Fatal(err)
	}
	r, err := runner.New(runner.Config{
		AppName: "support", Agent: helper, SessionService: session.InMemoryService(), AutoCreateSession: true,
		PluginConfig: runner.PluginConfig{Plugins: []*plugin.Plugin{
			byheartadk.Plugin(byheartadk.Config{Store: st, Options: byheart.Options{Measure: byheart.ApproxTokens(byheart.Gemini), Budget: 8000}}),
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	question := genai.NewContentFromText("What did we decide about pricing?", genai.RoleUser)
	for ev, err := range r.Run(ctx, "u42", "c7", question, agent.RunConfig{}) {
		if err != nil {
			log.Fatal(err)
		}
		if ev.LLMResponse.Content != nil && !ev.LLMResponse.Partial {
			for _, p := range ev.LLMResponse.Content.Parts {
				log.Print(p.Text)
			}
		}
	}
}
