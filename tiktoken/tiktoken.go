// Package byhearttiktoken counts tokens exactly as OpenAI's o200k and
// cl100k tokenizers do, for byheart's Options.Measure, with
// github.com/tiktoken-go/tokenizer, whose vocabularies are compiled in: no
// download, no network.
//
//	mem := byheart.New(byheart.Options{
//		Budget:  5000,                   // o200k tokens
//		Measure: byhearttiktoken.O200k, // exact, where byheart.ApproxTokens(byheart.O200k) estimates
//	})
//
// It lives in a module of its own so that the core stays standard-library
// only: the vocabularies are megabytes of code a budget in characters or
// estimated tokens never needs.
package byhearttiktoken

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// O200k is a measure for byheart's Options.Measure: the number of o200k
// tokens in text, as GPT-4o, GPT-4.1, GPT-5 and the o-series models count
// them. It returns -1 if the tokenizer fails, which byheart reports as
// ErrMeasure; byheart's texts are valid UTF-8, on which it does not fail.
func O200k(text string) int { return count(o200k, text) }

// Cl100k is a measure for byheart's Options.Measure: the number of cl100k
// tokens in text, as GPT-4, GPT-3.5 and OpenAI's embedding models count
// them. It returns -1 if the tokenizer fails, as O200k does.
func Cl100k(text string) int { return count(cl100k, text) }

// The codecs are built on first use: building one compiles its pattern and
// maps its vocabulary, which a program that never counts need not pay for.
var (
	o200k  = sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.O200kBase) })
	cl100k = sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.Cl100kBase) })
)

func count(codec func() (tokenizer.Codec, error), text string) int {
	c, err := codec()
	if err != nil {
		return -1
	}
	n, err := c.Count(text)
	if err != nil {
		return -1
	}
	return n
}
