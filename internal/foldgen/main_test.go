package main

import (
	"os"
	"testing"
)

// TestTablesAreUpToDate fails when stem_fold.go is not what the generator
// writes, so a hand edit or a stale table cannot slip in.
func TestTablesAreUpToDate(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../stem_fold.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("stem_fold.go is stale: run go generate at the repository root")
	}
}

func TestFoldDropsMarksAndSpellsOutLetters(t *testing.T) {
	for r, want := range map[rune]string{
		'É': "e", 'ñ': "n", 'ß': "ss", 'Æ': "ae", 'ŀ': "l", 'ǅ': "dz", 'ё': "е", 'Й': "и",
		'ά': "α", 'ς': "σ", 'ﬁ': "fi", 'ự': "u", 'Ø': "o",
	} {
		if got := fold(r); got != want {
			t.Errorf("fold(%q) = %q, want %q", r, got, want)
		}
	}
}
