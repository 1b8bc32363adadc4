package byheart

import (
	"bytes"
	"slices"
)

// German writes a compound as one word ("Zahnarzt", "Autoschlüssel"), so a
// question that names the compound shares no term with a turn that names
// its parts ("beim Arzt", "die Schlüssel vom Auto"), and a question that
// names a part shares none with a turn that names the compound. No
// dictionary is shipped: the memory's own vocabulary is the dictionary, and
// the split is made when a query is asked, against the vocabulary as it is
// then. A turn's words are indexed as said, so its terms depend on nothing
// but its text, and a memory indexes the same whatever order its turns came
// in or however it was restored; a split made at append time would depend
// on what had been said before.
//
// A query's German words meet the memory's compounds three ways:
//
//   - a compound in the query is also searched as its two parts where the
//     vocabulary knows both ("Zahnarzt" finds "beim Arzt"; compoundParts);
//   - a word of the query is also searched as the memory's compounds it is
//     the head or the modifier of ("Arzt" finds "beim Zahnarzt", "Zahn"
//     finds "die Zahnbürste");
//   - a compound in the query the memory never says is also searched as the
//     memory's compounds that share a part with it, a part the vocabulary
//     knows as a word of its own ("Großeltern" finds "mein Großvater" where
//     the memory says "groß"), or a modifier of five letters or more that
//     opens both ("Kinderarzt" and "Kindergarten" share "kinder").
//
// Each compound found is searched as itself, so it weighs what it weighs in
// BM25 when a query names it. Parts are held to the shapes of words: a
// modifier is not a prefix ("ver-", "aus-", "un-"), a function word, or a
// letter run without a vowel, and a head is not a suffix ("-heit",
// "-ness") of a derived word.

// minHead and minModifier are the shortest parts a compound is split into:
// shorter ones are endings and prefixes more often than words.
const (
	minHead     = 4
	minModifier = 3
	// minRest is the shortest rest of a compound after a part the query
	// names: the memory's terms are stems, whose endings are cut ("Vater"
	// is "vat").
	minRest = 3
	// minKnownModifier is the shortest modifier two compounds may share
	// when the vocabulary knows it as a word of its own: many words open
	// with a known word of three letters ("tag", "see", "arm").
	minKnownModifier = 4
	// minShared is the shortest modifier two compounds may share when the
	// vocabulary does not know it as a word of its own.
	minShared = 5
)

// links are the linking elements German puts between a compound's parts
// ("Geburtstagskuchen", "Kinderarzt" has none).
var links = [...]string{"", "s", "es", "n", "en", "e", "er"}

// eachQueryTerm hands fn the terms of a query: each term the tokenizer
// gives, followed by the parts of a German compound (see compoundParts),
// and, when the query may be German, the memory's compounds that share a
// part with one of its words (see relatedCompounds).
func (ix *index) eachQueryTerm(text string, fn func(term []byte)) {
	ix.tk.eachIn(text, ix.spoken, func(term []byte) {
		fn(term)
		if ix.tk.cand&(langSet(1)<<german) != 0 {
			compoundParts(term, ix.known, fn)
		}
	})
	if ix.tk.cand&(langSet(1)<<german) != 0 {
		ix.relatedCompounds(fn)
	}
}

// spoken narrows the languages of a query with no stop words to tell its
// language by to those whose stems of its words the memory's vocabulary
// holds most of: the memory's own turns are the evidence. All of them
// when it holds none.
func (ix *index) spoken(tk *tokenizer) langSet {
	var n [latinLangs]int
	for _, w := range tk.words {
		if w.kind != latinWord {
			continue
		}
		for l := range latinLangs {
			tk.scratch = append(tk.scratch[:0], tk.arena[w.start:w.end]...)
			if ix.known(stemmers[l](tk.scratch)) {
				n[l]++
			}
		}
	}
	best, set := 0, allLatin
	for l := range latinLangs {
		switch {
		case n[l] > best:
			best, set = n[l], langSet(1)<<l
		case n[l] == best && best > 0:
			set |= langSet(1) << l
		}
	}
	return set
}

// known reports whether the memory's vocabulary holds term.
func (ix *index) known(term []byte) bool {
	_, ok := ix.lookup(term)
	return ok
}

// compoundParts hands fn the two parts of term when it reads as a German
// compound whose parts are both known: the longest known head first, the
// modifier with or without a linking element ("Geburtstagskuchen" is
// "Geburtstag" and "Kuchen"). It hands nothing for other words.
func compoundParts(term []byte, known func([]byte) bool, fn func([]byte)) {
	if len(term) < minHead+minModifier || !lettersOnly(term) {
		return
	}
	for p := minModifier; p <= len(term)-minHead; p++ {
		head := term[p:]
		if !known(head) {
			continue
		}
		mod := term[:p]
		for _, link := range links {
			m := len(mod) - len(link)
			if m < minModifier || string(mod[m:]) != link || !known(mod[:m]) {
				continue
			}
			fn(mod[:m])
			fn(head)
			return
		}
	}
}

// queryWord is one German word of a query, stemmed, with the parts of it
// the vocabulary knows as words of their own.
type queryWord struct {
	stem  []byte
	said  bool     // the vocabulary holds the word itself
	mods  [][]byte // known modifiers it opens with
	heads [][]byte // known heads it ends with
}

// parts finds the modifiers and heads of q that known knows, when it does
// not know q itself: a word the memory says as it is needs no compound that
// shares a part with it, only its own compounds.
func (q *queryWord) parts(known func([]byte) bool) {
	q.mods, q.heads = q.mods[:0], q.heads[:0]
	if q.said = known(q.stem); q.said {
		return
	}
	for p := minModifier; p <= len(q.stem)-minRest; p++ {
		if mod := q.stem[:p]; p >= minKnownModifier && modifierShape(mod) && restOf(q.stem[p:], minRest) && known(mod) {
			q.mods = append(q.mods, mod)
		}
		if head := q.stem[p:]; len(head) >= minHead && headShape(head) && modifierOf(q.stem[:p]) && known(head) {
			q.heads = append(q.heads, head)
		}
	}
}

// relatedCompounds hands fn, in the order of their bytes, the terms of the
// vocabulary that share a part with a German word of the query just read
// (see the file's comment).
func (ix *index) relatedCompounds(fn func([]byte)) {
	tk := &ix.tk
	cand := tk.cand
	words := tk.qwords[:0]
	buf := tk.qbuf[:0]
	for _, w := range tk.words {
		if w.kind != latinWord || w.stop&cand != 0 {
			continue
		}
		from := len(buf)
		buf = append(buf, tk.arena[w.start:w.end]...)
		st := stemGerman(buf[from:])
		buf = buf[:from+len(st)]
		if len(st) < minHead || slices.ContainsFunc(words, func(q queryWord) bool { return bytes.Equal(q.stem, st) }) {
			buf = buf[:from]
			continue
		}
		words = append(words, queryWord{stem: st})
	}
	tk.qbuf = buf
	if len(words) == 0 {
		tk.qwords = words
		return
	}
	for i := range words {
		words[i].parts(ix.known)
	}
	tk.qwords = words
	c := &tk.compounds
	c.update(ix)
	found := tk.qfound[:0]
	for i := range words {
		q := &words[i]
		visit := func(id uint32) {
			if related(q, ix.termBytes(id)) {
				found = append(found, id)
			}
		}
		c.visit(ix, q.stem, false, visit) // "zahn" in "zahnarzt"
		c.visit(ix, q.stem, true, visit)  // "arzt" in "zahnarzt"
		for _, m := range q.mods {
			c.visit(ix, m, false, visit)
		}
		for _, h := range q.heads {
			c.visit(ix, h, true, visit)
		}
		if len(q.stem) >= minShared+minRest && !q.said {
			c.visit(ix, q.stem[:minShared], false, visit)
		}
		for _, id := range c.tail {
			visit(id)
		}
	}
	slices.SortFunc(found, func(a, b uint32) int { return bytes.Compare(ix.termBytes(a), ix.termBytes(b)) })
	found = slices.Compact(found)
	tk.qfound = found
	for _, id := range found {
		fn(ix.termBytes(id))
	}
}

// compoundIndex orders the memory's vocabulary for the compound search:
// the terms long enough to be compounds, by their bytes and by their bytes
// read from the end, so the terms that open or end with a part are a range
// of each. Term ids are never given again, so it only grows: the terms
// added since it was last sorted wait in tail, which the search reads
// whole, and are merged in once there are many. A forgotten term has no
// bytes to sort by, so the terms forgotten since the last call are dropped
// before a search reads the lists (which stay in order). Only the index's
// own tokenizer fills one.
type compoundIndex struct {
	upto      uint32   // the term ids looked at so far
	forgotten int      // how many of them the vocabulary had forgotten then
	front     []uint32 // by their bytes
	back      []uint32 // by their bytes read from the end
	tail      []uint32 // added since front and back were sorted
}

// update takes in the terms the vocabulary gained and lost since the last
// call.
func (c *compoundIndex) update(ix *index) {
	dead := func(id uint32) bool { return !compoundSized(ix, id) }
	if forgotten := ix.terms.n - ix.nterms; forgotten != c.forgotten {
		c.front = slices.DeleteFunc(c.front, dead)
		c.back = slices.DeleteFunc(c.back, dead)
		c.tail = slices.DeleteFunc(c.tail, dead)
		c.forgotten = forgotten
	}
	for id := c.upto; id < uint32(ix.terms.n); id++ {
		if compoundSized(ix, id) {
			c.tail = append(c.tail, id)
		}
	}
	c.upto = uint32(ix.terms.n)
	if len(c.tail) <= max(256, len(c.front)/8) {
		return
	}
	front := slices.DeleteFunc(append(c.front, c.tail...), dead)
	slices.SortFunc(front, func(a, b uint32) int { return bytes.Compare(ix.termBytes(a), ix.termBytes(b)) })
	back := slices.DeleteFunc(append(c.back, c.tail...), dead)
	slices.SortFunc(back, func(a, b uint32) int { return compareBack(ix.termBytes(a), ix.termBytes(b)) })
	c.front, c.back, c.tail = front, back, c.tail[:0]
}

// compoundSized reports whether term id is in the vocabulary, of letters
// only and long enough to hold two parts.
func compoundSized(ix *index, id uint32) bool {
	return ix.info(id).size >= minHead+minModifier && lettersOnly(ix.termBytes(id))
}

// visit hands fn every sorted term that opens with part (or, with atEnd,
// ends with it); the tail is the caller's to read.
func (c *compoundIndex) visit(ix *index, part []byte, atEnd bool, fn func(id uint32)) {
	list, cmp := c.front, func(id uint32) int { return comparePrefix(ix.termBytes(id), part) }
	if atEnd {
		list, cmp = c.back, func(id uint32) int { return compareSuffix(ix.termBytes(id), part) }
	}
	i, _ := slices.BinarySearchFunc(list, 0, func(id uint32, _ int) int { return cmp(id) })
	for ; i < len(list) && cmp(list[i]) == 0; i++ {
		fn(list[i])
	}
}

// comparePrefix compares v's opening, as long as part, with part.
func comparePrefix(v, part []byte) int {
	return bytes.Compare(v[:min(len(v), len(part))], part)
}

// compareSuffix compares v's ending, as long as part, with part, both read
// from the end.
func compareSuffix(v, part []byte) int {
	return compareBack(v[len(v)-min(len(v), len(part)):], part)
}

// compareBack compares a and b read from their ends.
func compareBack(a, b []byte) int {
	for i := 1; i <= len(a) && i <= len(b); i++ {
		if x, y := a[len(a)-i], b[len(b)-i]; x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// related reports whether the vocabulary's term v shares a part with the
// query's word q: q is v's head or its modifier, or both are compounds with
// a known part in common or one modifier of minShared letters.
func related(q *queryWord, v []byte) bool {
	s := q.stem
	if len(v) < minHead+minModifier || bytes.Equal(s, v) {
		return false
	}
	// The cheap test first: v must end or open as s or one of its parts.
	if v[0] != s[0] && v[len(v)-1] != s[len(s)-1] {
		return false
	}
	if !lettersOnly(v) {
		return false
	}
	if bytes.HasSuffix(v, s) && modifierOf(v[:len(v)-len(s)]) {
		return true // "arzt" in "zahnarzt"
	}
	if bytes.HasPrefix(v, s) && restOf(v[len(s):], minHead) {
		return true // "zahn" in "zahnarzt"
	}
	for _, m := range q.mods {
		if bytes.HasPrefix(v, m) && restOf(v[len(m):], minRest) {
			return true // "gross" in "grosselt" and "grossvat"
		}
	}
	for _, h := range q.heads {
		if bytes.HasSuffix(v, h) && modifierOf(v[:len(v)-len(h)]) {
			return true // "arzt" in "kinderarzt" and "zahnarzt"
		}
	}
	if q.said {
		return false
	}
	n := 0
	for n < len(s) && n < len(v) && s[n] == v[n] {
		n++
	}
	if n < minShared {
		return false
	}
	// The shared opening may run into the rest ("kinderarzt" and
	// "kindergart" share "kinder", "grossvat" and "grosselt" "gross"):
	// any split of it that leaves both rests long enough will do.
	if derived(s[:n]) {
		return false
	}
	for p := minShared; p <= n; p++ {
		if modifierShape(s[:p]) && restOf(s[p:], minRest) && restOf(v[p:], minRest) {
			return true
		}
	}
	return false
}

// derived reports whether w opens with a prefix of derived words: two
// words that share "gesch" ("Geschenk", "Geschichte") share no part.
func derived(w []byte) bool {
	for k := 2; k <= len(w); k++ {
		if prefixes[string(w[:k])] {
			return true
		}
	}
	return false
}

// modifierOf reports whether m, the opening of a compound before a head,
// is a modifier with or without its linking element.
func modifierOf(m []byte) bool {
	for _, link := range links {
		k := len(m) - len(link)
		if k >= minModifier && string(m[k:]) == link && modifierShape(m[:k]) {
			return true
		}
	}
	return false
}

// restOf reports whether r, what follows a modifier in a compound, is a
// head of at least n letters, after a linking element or not.
func restOf(r []byte, n int) bool {
	for _, link := range links {
		if len(r)-len(link) >= n && string(r[:len(link)]) == link && headShape(r[len(link):]) {
			return true
		}
	}
	return false
}

// modifierShape reports whether m may be a compound's modifier: it has a
// vowel, and it is neither a function word nor a prefix that makes derived
// words ("ver", "aus", "un", "inter").
func modifierShape(m []byte) bool {
	if len(m) < minModifier || !hasVowel(m) || prefixes[string(m)] {
		return false
	}
	_, stop := stopLangs[string(m)]
	return !stop
}

// headShape reports whether h may be a compound's head: it has a vowel and
// is not a suffix that makes derived words ("heit", "ness").
func headShape(h []byte) bool { return hasVowel(h) && !suffixes[string(h)] }

func lettersOnly(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return len(w) > 0
}

// prefixes are the German and English prefixes of derived words, which a
// compound's modifier is not ("Verband" is no kind of "Band").
var prefixes = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range []string{
		"ver", "zer", "ent", "emp", "miss", "ab", "an", "auf", "aus", "bei", "ein", "mit", "nach", "vor",
		"weg", "los", "her", "hin", "dar", "durch", "unter", "uber", "wieder", "wider", "zuruck", "hinter",
		"gegen", "fort", "voll", "heraus", "herum", "voran", "vorbei", "zusammen", "uberall",
		"dis", "mis", "pre", "pro", "sub", "super", "over", "under", "out", "inter", "trans", "con",
		"com", "non", "anti", "counter", "fore", "self", "semi", "multi",
		"ge", "be", "er", "un", "ur", "zu", "um", "re", "de", "im", "in", "ex",
	} {
		m[p] = true
	}
	return m
}()

// suffixes are the German and English endings of derived words, which a
// compound's head is not ("Freiheit" is no kind of "Gesundheit").
var suffixes = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range []string{
		"heit", "keit", "schaft", "lich", "isch", "ling", "chen", "lein", "ung", "ungen", "haft", "sam",
		"bar", "nis", "tum", "ismus", "itat", "ieren", "ier", "ness", "less", "ship", "ment", "ful",
		"able", "ible", "tion", "sion", "ity", "ism", "ist", "ous", "ive", "ize", "ise", "ical", "ally",
		"ing", "ings", "ers", "ern", "est", "ness", "hood", "dom", "ward", "wards", "wise",
	} {
		m[s] = true
	}
	return m
}()
