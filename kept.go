package byheart

import (
	"math"
	"slices"
	"sort"
	"time"
)

// Rule 3 keeps the context still by treating it as an append-only log. A
// provider's prompt cache needs only the prefix of a call to repeat, so the
// context a rebuild makes is kept and only ever grows at its end: the turns
// appended since follow it as native messages, every earlier part byte for
// byte what the cache holds. What a query needs that the log lacks is
// recalled after the log, past the cache breakpoint, for that call alone: a
// stretch one query needs costs one uncached read there, where written into
// the log it would cost a cache write and then a cached read on every call
// after it, and would fill the log towards its next rebuild. When the log
// would overrun the budget, or lacks even the query's best stretch and
// cannot leave the query room for all it needs, it is rebuilt, to a fill
// that leaves it room to grow again.

// kept is the log: the memory block of the last rebuild, then the turns
// from upto on as native messages. Stretches are named by their first
// turn, so a rewrite of the boundaries finds the same stretches or, if they
// are gone, forces a rebuild.
type kept struct {
	block quote
	upto  int // turns before upto appear only where quoted; turns from upto on follow natively
	made  int // how many turns there were when the block was made; 0 when unknown (restored)
}

// quote is one memory part: stretches quoted in time order.
type quote struct {
	keys []int  // first turn of each stretch, ascending, or of the part of one (see piece)
	ends []int  // where each one's quote ends: the stretch's end when quoted, or upto
	text string // the rendered part; "" when it quotes nothing
	size int    // characters of text
	// standing are the standing turns the memory block shows, ascending,
	// in a section of their own (see standingShown); nil elsewhere.
	standing []int
	// left is how many standing turns the section has no room for.
	left int
}

// covers reports whether turn t is quoted.
func (q *quote) covers(t int) bool {
	if _, ok := slices.BinarySearch(q.standing, t); ok {
		return true
	}
	i := sort.SearchInts(q.keys, t+1) - 1
	return i >= 0 && t < q.ends[i]
}

// covers reports whether turn t is in the log, quoted or native.
func (sel *kept) covers(t int) bool {
	return t >= sel.upto || sel.block.covers(t)
}

// quote renders turns [keys[i], ends[i]) for each i as one memory part of
// a log whose native turns start at upto, leaving out the standing turns
// a section shows: the block's own, which it opens with, or the log's,
// which a recall past it does not quote again. A run that neither starts
// where its stretch does nor ends where the stretch's quote would (its
// end, or upto) is part of a longer stretch (see piece), and says so.
func (m *state) quote(keys, ends []int, upto int, header string) quote {
	var standing []int
	left := 0
	switch {
	case header == memoryHeader:
		standing, left = m.standingShown(upto)
	case m.sel != nil:
		standing = m.sel.block.standing
	}
	var parts []bool
	for i, k := range keys {
		if s := m.stretchOf(k); s >= 0 && (m.str[s].start != k || ends[i] < min(m.stretchEnd(s), upto)) {
			if parts == nil {
				parts = make([]bool, len(keys))
			}
			parts[i] = true
		}
	}
	text, size := m.renderBlock(keys, ends, parts, header, standing)
	q := quote{keys: keys, ends: ends, text: text, size: size, left: left}
	if header == memoryHeader {
		q.standing = standing
	}
	return q
}

// reselect applies rule 3 to a composition over the budget. The log is
// kept as it is while it serves the query: with recall on, what a fresh
// selection would show for the query that the log lacks and that is worth
// its place (see missing) is recalled past the breakpoint (see recall);
// with recall off, while it scores close enough to a rebuild's (see
// serves). It is rebuilt when it would overrun the budget, when it no
// longer matches the conversation, when the newest step is cut to fit,
// when a pause has outlived a provider's cache of it (see cold), when it
// lacks the query's best stretch and the room it leaves cannot hold all
// the query needs recalled, or when the query's best
// stretch is too long for the room and the log lacks the part of it that
// matches (see piece). reserve is what a rebuild leaves free for outside
// material. It reports why the previous call's prefix is not repeated in
// full ("" when it is) and what to recall past the breakpoint (the zero
// quote for nothing).
func (m *state) reselect(rk *ranking, reserve int) (Rebuild, quote) {
	if why := m.unkept(); why != "" {
		return why, m.renew(rk, reserve, why)
	}
	sel := m.sel
	cut := m.cut()
	if _, _, top, ok := m.piece(rk, cut, m.room(cut, reserve)); ok && !sel.covers(top) {
		// The best stretch is too long for any room the log has: a
		// rebuild quotes the part of it that matches.
		return RebuildNoRoom, m.renew(rk, reserve, RebuildNoRoom)
	}
	if m.logSize(sel) > m.opt.Budget {
		return RebuildOverBudget, m.renew(rk, reserve, RebuildOverBudget)
	}
	room := m.room(cut, 0)
	if m.opt.Recall < 0 {
		// Keep or rebuild: the log against the judged best a rebuild
		// would show.
		if m.serves(rk, sel, rk.picks(cut, m.capacity(room), m.tune.judged)) {
			return "", quote{}
		}
		m.rebuild(rk, reserve)
		return RebuildWeaker, quote{}
	}
	if !m.recalls() {
		return "", quote{}
	}
	// What a fresh selection would show that scores, at most Recall
	// stretches when it is set.
	limit := m.opt.Recall
	if limit == 0 {
		limit = math.MaxInt
	}
	picked := rk.picks(cut, room, limit)
	want := m.missing(rk, sel, picked)
	q := m.recall(sel, want)
	if !m.holdsBest(rk, q, want) && !m.shows(rk, sel, picked) {
		// The query's best do not fit beside a log that lacks even its
		// best stretch: a rebuild chooses the block for it. A log that
		// shows the best, or can recall the query's judged best, serves
		// the query with what fits beside it.
		return RebuildNoRoom, m.renew(rk, reserve, RebuildNoRoom)
	}
	return "", q
}

// holdsBest reports whether the recall q quotes what decides the query's
// answer among what it needs that the log lacks (want, by value): the
// judged best, and every later one worth at least a third of the best one's
// value. The many weaker matches a fresh fill adds at the end may not fit:
// a log is not rebuilt for them.
func (m *state) holdsBest(rk *ranking, q quote, want []int) bool {
	if len(want) == 0 {
		return true
	}
	worth := func(k int) float64 {
		s := m.stretchOf(k)
		return rk.value(s, rk.score(s), m.sel.upto)
	}
	bar := worth(want[0]) / 3
	for i, k := range want {
		if i >= m.tune.judged && worth(k) < bar {
			break
		}
		if !q.covers(k) {
			return false
		}
	}
	return true
}

// shows reports whether the log shows the query's best stretch: the one
// of picked that scores most.
func (m *state) shows(rk *ranking, sel *kept, picked []int) bool {
	best := -1
	for _, s := range picked {
		if best < 0 || rk.score(s) > rk.score(best) {
			best = s
		}
	}
	return best >= 0 && sel.covers(m.str[best].start)
}

// recalls reports whether a call may recall: a recall goes after the
// newest turn, where a result may still have to follow its call, so while
// one waits the call recalls nothing.
func (m *state) recalls() bool {
	return m.opt.Recall >= 0 && m.turns[len(m.turns)-1].waiting == 0
}

// renew rebuilds the log and, when it recalls, returns what the query
// needs that the block's share of the room leaves out, to recall past the
// breakpoint, so the call that rebuilds gives the model what a fresh
// selection would, while the block stays the share that leaves the log
// room to grow.
func (m *state) renew(rk *ranking, reserve int, why Rebuild) quote {
	m.rebuild(rk, reserve)
	if why == RebuildFresh || why == RebuildStep || !m.recalls() {
		return quote{}
	}
	sel := m.sel
	limit := m.opt.Recall
	if limit == 0 {
		limit = math.MaxInt
	}
	picked := rk.picks(sel.upto, m.room(sel.upto, reserve), limit)
	q := m.recall(sel, m.missing(rk, sel, picked))
	return q
}

// unkept says why the kept log cannot be kept whatever the query, or ""
// when it may be.
func (m *state) unkept() Rebuild {
	sel := m.sel
	why := m.dropped
	m.dropped = ""
	switch {
	case m.opt.Stability < 0:
		return RebuildFresh
	case sel == nil && why != "":
		return why
	case sel == nil:
		return RebuildFirst
	case !m.current(sel):
		return RebuildStale
	case m.cap.on:
		// While the newest step is cut to fit, how much each turn keeps
		// changes as the step grows, so the log is made afresh.
		return RebuildStep
	case m.cold(sel):
		return RebuildExpired
	}
	return ""
}

// cold reports whether a provider has surely dropped every cache entry of
// the log, so that keeping it buys nothing: the provider would write it
// whole again, while a rebuild picks for the query at hand, writes less,
// and leaves the new sitting room to grow. Two pauses tell: the query came
// (ComposeAt) at least cacheLifetime after both the newest turn and the
// previous query, if that one said when it came; or the newest turn came
// that long after the one before it, no call coming between (in a chat or
// an agent loop a call follows a turn), while the block was made before
// the newest turn was appended (else a call since has rebuilt already). A
// conversation without times never makes a log cold: a turn without one
// takes the previous turn's.
func (m *state) cold(sel *kept) bool {
	n := len(m.turns)
	if n == 0 {
		return false
	}
	newest := m.when(n - 1)
	if last := newest; !m.asked.IsZero() {
		if m.called.After(last) {
			last = m.called
		}
		if lapsed(last, m.asked) && (sel.made < n || !m.called.IsZero()) {
			return true
		}
	}
	return sel.made < n && n >= 2 && lapsed(m.when(n-2), newest)
}

// recall quotes, of the stretches want names (the log lacks them, by
// value), the best one and every later one that still fits beside it in
// what the budget leaves the log, as a greedy fill would, to go past the
// breakpoint; the zero quote when the best does not fit. What the call
// reads uncached is thus bounded by the room, and what it buys by the
// query.
func (m *state) recall(sel *kept, want []int) quote {
	if len(want) == 0 {
		return quote{}
	}
	room := m.opt.Budget - m.logSize(sel) - m.meter.recall
	var keys []int
	for _, k := range want {
		size := m.sizeBefore(m.stretchOf(k), sel.upto)
		if size > room {
			continue
		}
		room -= size
		keys = append(keys, k)
	}
	if len(keys) == 0 || keys[0] != want[0] {
		return quote{}
	}
	for len(keys) > 0 {
		// Date lines make a quote of several stretches differ a little
		// from the sum of their sizes: the worst goes until it fits.
		asc := slices.Sorted(slices.Values(keys))
		ends := make([]int, len(asc))
		for i, k := range asc {
			ends[i] = min(m.stretchEnd(m.stretchOf(k)), sel.upto)
		}
		if q := m.quote(asc, ends, sel.upto, recallHeader); m.logSize(sel)+q.size <= m.opt.Budget {
			return q
		}
		keys = keys[:len(keys)-1]
	}
	return quote{}
}

// lapsed reports whether a cache entry written at then has expired by now;
// a zero time gives no reason to think so.
func lapsed(then, now time.Time) bool {
	return !then.IsZero() && !now.IsZero() && now.Sub(then) >= cacheLifetime
}

// cacheLifetime is how long a provider keeps a cache entry it has not read
// since (Anthropic's default; OpenAI's is at least as long).
const cacheLifetime = 5 * time.Minute

// serves reports whether, with recall off (keep or rebuild, the rule
// before queries could recall), the log serves a query for which a rebuild would
// pick picked, best first: while the judged best it shows score at least
// (1 − Stability) of what a rebuild would bring.
func (m *state) serves(rk *ranking, sel *kept, picked []int) bool {
	return rk.strength(sel) >= (1-m.opt.Stability)*rk.freshStrength(picked)
}

// missing returns, best first, the first turns of the stretches a rebuild
// would show for the query (picked) that the log lacks, leaving out those
// that match too little of the query to be worth their place (floor).
func (m *state) missing(rk *ranking, sel *kept, picked []int) []int {
	floor := m.floor(rk, picked)
	var keys []int
	for _, s := range picked {
		if rk.score(s) < m.floorOf(rk, floor, s) {
			continue // picks come by value, not by score
		}
		if k := m.str[s].start; !sel.covers(k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// floor is the least score a stretch must have to be worth a place in the
// context, and so an uncached read, for the query: what a stretch drawn at
// random scores for it at least (see query.chance; a stretch's score adds a
// share of its neighbour's, and a random stretch's neighbour scores so
// too), and beyond that the share
// Stability of the rest of the query's weight, up to the score of a
// stretch that holds every word of the query (see query.ceiling). A match
// any stretch could make tells nothing: a query of words said everywhere
// (a greeting, a name) needs more of them matched to be worth a recall. For
// a Retriever, whose scores have no such scale, the floor is that share of
// the best stretch's score.
func (m *state) floor(rk *ranking, picked []int) float64 {
	share := max(m.opt.Stability, 0)
	if rk.q != nil {
		chance := rk.q.chance() * (1 + m.tune.neighbour)
		return chance + share*(rk.q.ceiling()-chance)
	}
	if len(picked) == 0 {
		return 0
	}
	return share * rk.score(picked[0])
}

// floorOf is the floor a stretch s must reach: floor, but for a stretch
// shorter than Chunk only because a long turn beside it is a stretch of
// its own (a user's statement beside an assistant's pages, the reply to
// them), the floor in proportion to its size. Ranked by BM25, a stretch
// matches the query with the words it holds, and such a stretch holds a
// turn's words where one the conversation's pace cut holds a Chunk's: it
// must match as much of the query per character, not in all.
// Its size is the characters of its turns, as rule 2 weighs a stretch
// (see ranking.value), in Chunk's unit whatever the budget's.
func (m *state) floorOf(rk *ranking, floor float64, s int) float64 {
	if rk.q == nil || !m.besideLong(s) {
		return floor
	}
	size := m.runes(m.str[s].start, m.stretchEnd(s))
	if size >= m.opt.Chunk {
		return floor
	}
	return floor * float64(size) / float64(m.opt.Chunk)
}

// besideLong reports whether stretch s has a long turn for a neighbour in
// its sitting (see share).
func (m *state) besideLong(s int) bool {
	return s > 0 && m.longTurn(s-1) && m.sameSitting(s-1) || s+1 < len(m.str) && m.longTurn(s+1) && m.sameSitting(s)
}

// lowestFloor is the least floorOf can make of floor: a fill reading
// stretches best first stops below it.
func (m *state) lowestFloor(floor float64) float64 {
	if !m.long {
		return floor
	}
	return floor / float64(m.opt.Chunk) // a turn holds a character at least
}

// current reports whether the log still matches the conversation: the
// turns it places are there and every stretch it quotes still starts where
// it did.
func (m *state) current(sel *kept) bool {
	if sel.upto > len(m.turns) {
		return false
	}
	q := &sel.block
	for i, k := range q.keys {
		// A stretch starts where it did, or the part of one (see piece)
		// lies inside one.
		s := m.stretchOf(k)
		if s < 0 || m.str[s].start != k && q.ends[i] > m.stretchEnd(s) {
			return false
		}
	}
	return true
}

// logSize is the characters the log takes: its block and its native turns.
func (m *state) logSize(sel *kept) int {
	return sel.block.size + m.tailCost(sel.upto)
}

// strength is the summed score of the judged best stretches the log shows,
// quoted or native.
func (rk *ranking) strength(sel *kept) float64 {
	m := rk.m
	judged := m.tune.judged
	var buf [maxJudged]float64
	best := buf[:judged]
	push := func(v float64) {
		for i := range best {
			if v > best[i] {
				copy(best[i+1:], best[i:judged-1])
				best[i] = v
				return
			}
		}
	}
	for _, k := range sel.block.keys {
		push(rk.score(m.stretchOf(k)))
	}
	if sel.upto < len(m.turns) {
		for s := m.stretchOf(sel.upto); s < len(m.str); s++ {
			push(rk.score(s))
		}
	}
	total := 0.0
	for _, v := range best {
		total += v
	}
	return total
}

// freshStrength is the same measure for the stretches a rebuild would pick.
func (rk *ranking) freshStrength(picked []int) float64 {
	total := 0.0
	for i := 0; i < rk.m.tune.judged && i < len(picked); i++ {
		total += rk.score(picked[i])
	}
	return total
}

// cut is where a rebuild's native tail starts: the newest turns that fit
// the budget, at most lastTurns of them (and back to m.from, for
// Continue), and at least the newest one. It starts where a stretch may,
// so no tool result goes out natively without its call: back to the start
// of the step when that fits, else forward past it; when the newest step
// alone is over the budget, stepCap has cut its turns to share it.
func (m *state) cut() int {
	n := len(m.turns)
	cut, size := n, 0
	for cut > 0 && (n-cut < m.tune.lastTurns || cut > m.from) {
		next := size + m.nativeCost(cut-1)
		if next > m.opt.Budget && cut < n {
			break
		}
		cut--
		size = next
	}
	back := cut
	for ; !m.splittable(back); back-- {
		size += m.nativeCost(back - 1)
	}
	if size <= m.opt.Budget {
		return back
	}
	for cut < n && !m.splittable(cut) {
		cut++
	}
	if cut < n {
		return cut
	}
	return back
}

// stepCap is how the newest step's turns share the budget when, as native
// parts, they would overrun it together: each is cut to at most size
// characters. The zero value cuts nothing.
type stepCap struct {
	on         bool
	from, size int
}

// capStep sets m.cap for the conversation as it stands: a step's calls and
// results must go out together, so when the newest step is over the
// budget, the largest of its turns are cut to the one size at which all of
// them fit.
func (m *state) capStep() {
	m.cap = stepCap{}
	n := len(m.turns)
	if n == 0 {
		return
	}
	s := n - 1
	for !m.splittable(s) {
		s--
	}
	total := 0
	for t := s; t < n; t++ {
		total += m.nativeCost(t)
	}
	if total <= m.opt.Budget {
		return
	}
	costs := make([]int, 0, n-s)
	for t := s; t < n; t++ {
		costs = append(costs, m.nativeCost(t))
	}
	sort.Ints(costs)
	room := m.opt.Budget
	size := 0
	for i, c := range costs {
		if share := room / (len(costs) - i); c > share {
			size = share
			break
		}
		room -= c
	}
	m.cap = stepCap{on: true, from: s, size: size}
}

// room is what a rebuild may spend on stretches, given the tail from cut,
// the standing turns before it and reserve set aside.
func (m *state) room(cut, reserve int) int {
	return m.opt.Budget - m.tailCost(cut) - reserve - m.meter.memory - m.standingSize(cut)
}

// capacity is the share of room a rebuild spends: a sticky one only
// 1 − headroom of it, leaving the log room to grow into.
func (m *state) capacity(room int) int {
	if m.opt.Stability >= 0 {
		return int(float64(room) * (1 - m.tune.headroom))
	}
	return room
}

// sizeBefore is the size of stretch s quoted up to turn upto.
func (m *state) sizeBefore(s, upto int) int {
	if m.stretchEnd(s) > upto {
		return m.sizeOf(m.str[s].start, upto)
	}
	return m.str[s].size
}

// tailCost is the characters of turns from t on as native parts.
func (m *state) tailCost(t int) int {
	n := 0
	for ; t < len(m.turns); t++ {
		n += m.nativeCost(t)
	}
	return n
}

// rebuild starts a new log: a fresh selection for the ranking, quoted in
// the memory block, and the newest turns.
func (m *state) rebuild(rk *ranking, reserve int) {
	cut := m.cut()
	full := m.room(cut, reserve)
	capacity := m.capacity(full)
	if capacity < full {
		// The headroom must not cost the query the stretches that decide
		// whether the log serves it (the judged best): when they do not
		// fit the share a rebuild spends, as in a small budget, the share
		// grows to them.
		_, best := rk.choose(cut, full, m.tune.judged)
		need := 0
		for _, b := range best {
			need += m.sizeBefore(b, cut)
		}
		capacity = max(capacity, need)
	}
	// A best stretch too long for the room is quoted in part, first.
	a, b, _, part := m.piece(rk, cut, full)
	if part {
		size := m.sizeOf(a, b) + m.meter.part
		full -= size
		capacity = max(capacity-size, 0)
	}
	keys, _ := rk.choose(cut, capacity, 0)
	if len(keys) == 0 && !part && m.opt.Stability >= 0 {
		// Nothing scored and nothing fitted the share: the newest stretch
		// that fits at all.
		keys, _ = rk.choose(cut, full, 1)
	}
	ends := make([]int, len(keys))
	for i, k := range keys {
		ends[i] = min(m.stretchEnd(m.stretchOf(k)), cut)
	}
	if part {
		i := sort.SearchInts(keys, a)
		keys, ends = slices.Insert(keys, i, a), slices.Insert(ends, i, b)
	}
	m.sel = &kept{block: m.quote(keys, ends, cut, memoryHeader), upto: cut, made: len(m.turns)}
}

// included lists, ascending, the first turn of each stretch the context
// shows: quoted in the log's block or in recall, or native.
func (m *state) included(recall *quote) []int {
	sel := m.sel
	var inc []int
	for _, q := range []*quote{&sel.block, recall} {
		for i, k := range q.keys {
			for s := m.stretchOf(k); s < len(m.str) && m.str[s].start < q.ends[i]; s++ {
				inc = append(inc, m.str[s].start)
			}
		}
	}
	if sel.upto < len(m.turns) {
		for s := m.stretchOf(sel.upto); s < len(m.str); s++ {
			inc = append(inc, m.str[s].start)
		}
	}
	sort.Ints(inc)
	return slices.Compact(inc)
}

// piece finds, when the best stretch for the query (before upto) is too
// long for room, the part of it worth quoting: the whole turns around
// those that hold the most of the query's words, grown a turn or a tool
// step at a time towards the side that matches more, while they fit, and
// never parting a call from its result; top is the turn that matches
// most. It reports ok false when the best
// stretch fits, or no turn of it shares a word with the query, or not even
// its best turn fits.
func (m *state) piece(rk *ranking, upto, room int) (a, b, top int, ok bool) {
	best := rk.top(upto)
	if best < 0 || m.sizeBefore(best, upto) <= room {
		return 0, 0, 0, false
	}
	room -= m.meter.part
	from, to := m.str[best].start, min(m.stretchEnd(best), upto)
	words := map[string]bool{}
	for _, w := range Terms(rk.text) {
		words[w] = true
	}
	hits := make([]int, to-from)
	top = -1
	for t := from; t < to; t++ {
		seen := map[string]bool{}
		for _, w := range Terms(m.turns[t].indexed()) {
			if words[w] && !seen[w] {
				seen[w] = true
				hits[t-from]++
			}
		}
		if hits[t-from] > 0 && (top < 0 || hits[t-from] > hits[top-from]) {
			top = t
		}
	}
	if top < 0 {
		return 0, 0, 0, false
	}
	// step is the run of whole turns from t that must travel together.
	back := func(t int) int { // where the step ending at t starts
		for t > from && !m.splittable(t) {
			t--
		}
		return t
	}
	fwd := func(t int) int { // where the step starting at t ends
		for t++; t < to && !m.splittable(t); t++ {
		}
		return t
	}
	a, b = back(top), fwd(top)
	if m.sizeOf(a, b) > room {
		return 0, 0, 0, false
	}
	for {
		na, nb := a, b
		if a > from {
			na = back(a - 1)
		}
		if b < to {
			nb = fwd(b)
		}
		before := a > from && m.sizeOf(na, b) <= room
		after := b < to && m.sizeOf(a, nb) <= room
		switch {
		case before && after:
			if m.matched(hits, from, na, a) >= m.matched(hits, from, b, nb) {
				a = na
			} else {
				b = nb
			}
		case before:
			a = na
		case after:
			b = nb
		default:
			return a, b, top, true
		}
	}
}

// matched sums hits, counted from turn from, over turns [a, b).
func (m *state) matched(hits []int, from, a, b int) int {
	n := 0
	for t := a; t < b; t++ {
		n += hits[t-from]
	}
	return n
}
