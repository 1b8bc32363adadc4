package byheart

import (
	"encoding/json"
	"os"
	"strconv"
	"time"
)

// This file holds the conversations the speed benchmarks and the golden
// composition test run on: a synthetic chat generator, and a reader for the
// LoCoMo dev file when it sits beside the repository.

// locomoPath is the LoCoMo dev file beside the repository.
const locomoPath = "../shared/locomo/locomo-dev.json"

// locomoConv is one LoCoMo conversation as turns, with its questions.
type locomoConv struct {
	turns     []Turn
	questions []string
}

// loadLoCoMo reads the LoCoMo dev file as the benchmark program does:
// speaker_a is the user, each session's turns at its date, a shared image's
// caption after the text. It returns nil when the file is not there.
func loadLoCoMo() ([]locomoConv, error) {
	data, err := os.ReadFile(locomoPath)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		return nil, err
	}
	var out []locomoConv
	for _, s := range samples {
		var a string
		if err := json.Unmarshal(s.Conversation["speaker_a"], &a); err != nil {
			return nil, err
		}
		var c locomoConv
		for n := 1; ; n++ {
			raw, ok := s.Conversation["session_"+strconv.Itoa(n)]
			if !ok {
				break
			}
			var stamp string
			if err := json.Unmarshal(s.Conversation["session_"+strconv.Itoa(n)+"_date_time"], &stamp); err != nil {
				return nil, err
			}
			when, err := time.Parse("3:04 pm on 2 January, 2006", stamp)
			if err != nil {
				return nil, err
			}
			var turns []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(raw, &turns); err != nil {
				return nil, err
			}
			for _, t := range turns {
				role := Assistant
				if t.Speaker == a {
					role = User
				}
				text := t.Text
				if t.Caption != "" {
					text += " [shares a photo: " + t.Caption + "]"
				}
				if text == "" {
					continue
				}
				c.turns = append(c.turns, Turn{Role: role, Text: text, Time: when})
			}
		}
		for _, q := range s.QA {
			c.questions = append(c.questions, q.Question)
		}
		out = append(out, c)
	}
	return out, nil
}
