package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A LoCoMo-shaped file small enough for a test: two sessions, a relative
// date, and questions whose evidence only one of them holds.
const tiny = `[{"sample_id": "t-1",
 "conversation": {"speaker_a": "Ann", "speaker_b": "Bo",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [
   {"speaker": "Ann", "dia_id": "D1:1", "text": "I ran the charity race last Saturday and my legs still hurt."},
   {"speaker": "Bo", "dia_id": "D1:2", "text": "Well done! How long was it, and did your sister come to watch?"}],
  "session_2_date_time": "10:02 am on 25 May, 2023",
  "session_2": [
   {"speaker": "Ann", "dia_id": "D2:1", "text": "We booked the lake cabin for two weeks from now, finally."},
   {"speaker": "Bo", "dia_id": "D2:2", "text": "Pottery suits you. Bring me a mug when the first one is fired."}]},
 "qa": [{"question": "When did Ann run the charity race?", "answer": "6 May 2023", "evidence": ["D1:1"], "category": 2},
        {"question": "What did Ann book?", "answer": "the lake cabin", "evidence": ["D2:1"], "category": 4},
        {"question": "Did Ann fly a kite?", "adversarial_answer": "no", "evidence": ["D2:2"], "category": 5}]}]`

func TestRunSmall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(path, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, path, 20_000, 1); err != nil {
		t.Fatal(err)
	}
	// Both memories hold the whole of so small a conversation, so each
	// finds every evidence turn: the adversarial question is not counted.
	for _, want := range []string{"1 conversations, 4 turns, 2 questions", "| adk-go in-memory", "| byheart `byheartadk.MemoryService` | **1.000** |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunOnLoCoMo(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "locomo", "locomo-dev.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no LoCoMo file at %s", path)
	}
	if testing.Short() {
		t.Skip("the LoCoMo run takes seconds")
	}
	var out bytes.Buffer
	if err := run(&out, path, 20_000, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "7 conversations") {
		t.Errorf("unexpected output:\n%s", out.String())
	}
}
