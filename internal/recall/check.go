package recall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tiny is a LoCoMo-shaped file small enough for a test: two sessions, a
// relative date, and questions whose evidence only one of them holds.
const Tiny = `[{"sample_id": "t-1",
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

// CheckRun tests a benchmark's run: on Tiny, whose output must hold want
// (both memories hold the whole of so small a conversation, and the
// adversarial question is not counted), and on the first conversation of
// the LoCoMo file beside the repository when it is there and the tests are
// not -short (one conversation keeps a slow memory's run short).
func CheckRun(t *testing.T, run Run, want ...string) {
	t.Run("tiny", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "tiny.json")
		if err := os.WriteFile(path, []byte(Tiny), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(&out, path, 20_000, 1); err != nil {
			t.Fatal(err)
		}
		for _, w := range append([]string{"1 conversations, 4 turns, 2 questions"}, want...) {
			if !strings.Contains(out.String(), w) {
				t.Errorf("output lacks %q:\n%s", w, out.String())
			}
		}
	})
	t.Run("LoCoMo", func(t *testing.T) {
		path := filepath.Join("..", "..", "..", "shared", "locomo", "locomo-dev.json")
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no LoCoMo file at %s", path)
		}
		if testing.Short() {
			t.Skip("the LoCoMo run takes seconds")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var convs []json.RawMessage
		if err := json.Unmarshal(data, &convs); err != nil || len(convs) == 0 {
			t.Fatalf("%s holds no conversation: %v", path, err)
		}
		first := filepath.Join(t.TempDir(), "first.json")
		if err := os.WriteFile(first, append(append([]byte("["), convs[0]...), ']'), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(&out, first, 20_000, 1); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "1 conversations") || !strings.Contains(out.String(), "| byheart") {
			t.Errorf("unexpected output:\n%s", out.String())
		}
	})
}
