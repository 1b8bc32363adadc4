package main

// replayMethods are priced on the live replay: byheart as a live chat uses it
// (default, sticky), byheart reselecting on every call (to show what
// stickiness buys), and the baselines.
var replayMethods = []method{byheartDefault, byheartFresh, fullHistory, recencyWindow, plainRAG}

// replayTally sums one method's live-replay bill.
type replayTally struct {
	calls, warm    int
	hits, warmHits int
	rebuilds       int
	continuity     int // calls whose context held the previous turn
	withPrevious   int // calls that had a previous turn
	overruns       int
	contextChars   int
	maxContext     int
	// prompt and effective sum the calls' tokens uncached and as billed;
	// the warm sums count only calls that were not the first of a session.
	prompt, effective         float64
	warmPrompt, warmEffective float64
	// along is every call in order, for the pictures.
	along []callCost
}

// callCost is one call of a replay as the pictures draw it.
type callCost struct {
	Effective float64 // tokens as billed
	Rebuilt   bool    // the call reported Reselected
	Cold      bool    // the first call of a session
	At        int     // how many turns the conversation had
}

func (a *replayTally) merge(b replayTally) {
	a.calls += b.calls
	a.warm += b.warm
	a.hits += b.hits
	a.warmHits += b.warmHits
	a.rebuilds += b.rebuilds
	a.continuity += b.continuity
	a.withPrevious += b.withPrevious
	a.overruns += b.overruns
	a.contextChars += b.contextChars
	a.maxContext = max(a.maxContext, b.maxContext)
	a.prompt += b.prompt
	a.effective += b.effective
	a.warmPrompt += b.warmPrompt
	a.warmEffective += b.warmEffective
}

// replayConversation plays the conversation as a live chat: before each user
// turn is appended, the method composes with that turn as the query, and the
// call is priced; assistant turns are only appended.
func replayConversation(conv *conversation, m method, budget int, lat *latencies) (replayTally, error) {
	t, _, err := liveConversation(conv, m, budget, lat, nil)
	return t, err
}

// charge prices call c, composed for the chat or for a question asked
// during it when the conversation had at turns, on the replay's cache k,
// and counts it. cold says it is the first call of a session.
func (t *replayTally) charge(k *cache, c call, cold bool, budget, at int) {
	b := k.charge(c, cold)
	t.calls++
	t.prompt += b.Prompt()
	t.effective += b.Effective()
	if b.Hit() {
		t.hits++
	}
	if !cold {
		t.warm++
		t.warmPrompt += b.Prompt()
		t.warmEffective += b.Effective()
		if b.Hit() {
			t.warmHits++
		}
	}
	if c.reselected {
		t.rebuilds++
	}
	t.along = append(t.along, callCost{b.Effective(), c.reselected, cold, at})
	size := c.contextChars()
	t.contextChars += size
	t.maxContext = max(t.maxContext, size)
	if size > budget {
		t.overruns++
	}
}

// replayRow is one method's line of the replay table.
type replayRow struct {
	Method          string  `json:"method"`
	Calls           int     `json:"calls"`
	PromptTokens    float64 `json:"prompt_tokens_per_call"`
	EffectiveTokens float64 `json:"effective_tokens_per_call"`
	// WarmSaving is the share of the bill the cache saves on warm calls:
	// 1 - effective/prompt tokens, over calls that were not the first of a
	// session.
	WarmSaving  float64 `json:"warm_saving"`
	HitRate     float64 `json:"cache_hit_rate"`
	WarmHitRate float64 `json:"warm_cache_hit_rate"`
	// Rebuilds counts calls that reported Reselected; nil for the
	// baselines, which have no selection to keep.
	Rebuilds         *int    `json:"rebuilds,omitempty"`
	Continuity       float64 `json:"continuity"`
	Overruns         int     `json:"over_budget"`
	MeanContextChars float64 `json:"mean_context_chars"`
	MaxContextChars  int     `json:"max_context_chars"`
}

// replayResult is the replay section.
type replayResult struct {
	Budget int         `json:"budget"`
	Rows   []replayRow `json:"rows"`
	// Along holds, by method as in Rows, every call of the first
	// conversation's replay: what the pictures draw along a conversation.
	Along [][]callCost `json:"-"`
}

func (t replayTally) row(m method) replayRow {
	r := replayRow{Method: m.name, Calls: t.calls, Overruns: t.overruns, MaxContextChars: t.maxContext}
	r.PromptTokens = ratio(t.prompt, t.calls)
	r.EffectiveTokens = ratio(t.effective, t.calls)
	if t.warmPrompt > 0 {
		r.WarmSaving = 1 - t.warmEffective/t.warmPrompt
	}
	r.HitRate = ratio(float64(t.hits), t.calls)
	r.WarmHitRate = ratio(float64(t.warmHits), t.warm)
	r.Continuity = ratio(float64(t.continuity), t.withPrevious)
	r.MeanContextChars = ratio(float64(t.contextChars), t.calls)
	if m.selects {
		r.Rebuilds = &t.rebuilds
	}
	return r
}

// ratio is a/b, or 0 when there is nothing to divide by.
func ratio[N int | float64](a float64, b N) float64 {
	if b == 0 {
		return 0
	}
	return a / float64(b)
}
