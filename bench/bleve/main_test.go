package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A LoCoMo-shaped file small enough for a test: two sittings, a photo
// caption and relative dates, so the stretches carry date lines and
// annotations that bleve must be given exactly as byheart indexes them.
const tiny = `[{"sample_id": "t-1",
 "conversation": {"speaker_a": "Ann", "speaker_b": "Bo",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [
   {"speaker": "Ann", "text": "I ran the charity race last Saturday and my legs still hurt."},
   {"speaker": "Bo", "text": "Well done! How long was it, and did your sister come to watch?"},
   {"speaker": "Ann", "text": "Ten kilometres. She came, and we had pancakes after.", "blip_caption": "a medal on a table"},
   {"speaker": "Bo", "text": "Pancakes are the best reward. Any plans for next month?"}],
  "session_2_date_time": "10:02 am on 25 May, 2023",
  "session_2": [
   {"speaker": "Ann", "text": "We booked the lake cabin for two weeks from now, finally."},
   {"speaker": "Bo", "text": "The one with the rowing boat? Take pictures of the sunsets."},
   {"speaker": "Ann", "text": "Of course. I also started pottery classes yesterday evening."},
   {"speaker": "Bo", "text": "Pottery suits you. Bring me a mug when the first one is fired."}]},
 "qa": [{"question": "When did Ann run the charity race?", "answer": "6 May 2023", "evidence": ["D1:1"], "category": 2},
        {"question": "What did Ann start doing in May?", "answer": "pottery", "evidence": ["D2:3"], "category": 4}]}]`

func TestRunSmall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(path, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	// A budget far below the conversation, so byheart selects stretches.
	if err := run(&out, path, 300, 5, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 conversations, 8 turns", "| build, one batch", "| question:", "| live turn:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
