package agenthistory

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCheckAnsweredFailsARequestWhoseCallsAreNotEachAnsweredRightAfter(t *testing.T) {
	get, put := FuzzCall{ID: "c1", Tool: "get"}, FuzzCall{ID: "c2", Tool: "put"}
	reply := Sent{Calls: []FuzzCall{get, put}}
	for _, tc := range []struct {
		name string
		msgs []Sent
		ok   bool
	}{
		{"answered in order", []Sent{{}, reply, {Answer: &get}, {Answer: &put}, {}}, true},
		{"answered out of order", []Sent{reply, {Answer: &put}, {Answer: &get}}, true},
		{"a call unanswered", []Sent{reply, {Answer: &get}}, false},
		{"a call answered after another message", []Sent{reply, {Answer: &get}, {}, {Answer: &put}}, false},
		{"a tool message without its call", []Sent{{}, {Answer: &get}}, false},
		{"an id twice in the request", []Sent{{Calls: []FuzzCall{get}}, {Answer: &get}, {Calls: []FuzzCall{{ID: "c1", Tool: "put"}}}, {Answer: &FuzzCall{ID: "c1", Tool: "put"}}}, false},
		{"answered under another tool", []Sent{{Calls: []FuzzCall{get}}, {Answer: &FuzzCall{ID: "c1", Tool: "put"}}}, false},
	} {
		err := CheckAnswered(tc.msgs)
		assert.Equal(t, tc.ok, err == nil, "%s: %v", tc.name, err)
	}
}

func TestFuzzScriptPlaysTwoBytesAStep(t *testing.T) {
	steps := FuzzScript([]byte{1, 3, 2, 0x0c, 3, 0x07, 4, 2, 9}, []string{"a", "b", "c"})
	if !assert.Len(t, steps, 4, "the odd byte left over is no step") {
		return
	}
	assert.Equal(t, FuzzUser, steps[0].Kind)
	assert.True(t, steps[0].Image && steps[0].ImageFirst && steps[0].Text != "", "an image before the text")
	assert.Equal(t, FuzzReply, steps[1].Kind)
	assert.Equal(t, []FuzzCall{{ID: "a", Tool: "put", N: 0}, {ID: "b", Tool: "", N: 1}}, steps[1].Calls, "ids and tools drawn from the second byte")
	assert.Equal(t, FuzzResponses, steps[2].Kind)
	assert.Equal(t, []FuzzCall{{ID: "nobody", Tool: "", N: 0, Output: "out 0"}, {ID: "a", Tool: "put", N: 1, Output: ""}}, steps[2].Calls,
		"reversed, the first to no call, the last empty")
	assert.Equal(t, FuzzText, steps[3].Kind)
	assert.Equal(t, "a reply a reply ", steps[3].Text)
	assert.Equal(t, 3*time.Minute, steps[3].At.Sub(steps[0].At))
}
