package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCommandLineMistakesExitWithUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "usage:"},
		{"unknown command", []string{"explain"}, `unknown command "explain"`},
		{"ask without a question", []string{"ask", chatFile}, "want 2 arguments, got 1"},
		{"replay with a question", []string{"replay", chatFile, "why?"}, "want 1 arguments, got 2"},
		{"an unknown flag", []string{"ask", "-verbose", chatFile, "q"}, "flag provided but not defined: -verbose"},
		{"a bad number", []string{"replay", "-budget", "lots", chatFile}, `invalid value "lots" for flag -budget`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			assert.Equal(t, 2, run(tc.args, &out, &errs))
			assert.Contains(t, errs.String(), tc.want)
			assert.Empty(t, out.String())
		})
	}
}

func TestHelpGoesToStdoutAndSucceeds(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 0, run([]string{"help"}, &out, &errs))
	assert.Contains(t, out.String(), "byheart ask [flags] FILE QUESTION")

	out.Reset()
	assert.Equal(t, 0, run([]string{"ask", "-h"}, &out, &errs))
	assert.Contains(t, errs.String(), "-stability", "a command's -h lists its flags")
}

func TestFailuresExitOneAndSayWhy(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ask", "testdata/bad-role.jsonl", "q"}, "byheart: testdata/bad-role.jsonl:3: role"},
		{[]string{"replay", "testdata/no-such-file.jsonl"}, "no-such-file.jsonl"},
		{[]string{"ask", chatFile, "bad \xff utf-8"}, "byheart: "},
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, 1, run(tc.args, &out, &errs), "%q", tc.args)
		assert.Contains(t, errs.String(), tc.want)
	}
}
