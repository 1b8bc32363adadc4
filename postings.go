package byheart

import (
	"hash/maphash"
	"math"
	mbits "math/bits"
	"slices"
)

// The index's vocabulary and posting lists are laid out flat, so that what
// a term costs is a few bytes in a handful of large arrays rather than a
// map entry, a string, a slice header and an allocation of its own: a
// conversation's distinct terms and their postings are most of what its
// index holds, and a save full of new words would otherwise allocate many
// times its size on load.
//
// The vocabulary is the terms' bytes end to end in one arena, a record per
// term id (termInfo) and an open-addressing table from a term's hash to its
// id. The postings are two parallel arrays, the slots and their term
// frequencies, in which each term owns a run: its postings, sorted by slot,
// then room to grow. A term whose run is full moves to the end with more
// room, leaving its old run dead; the arrays are packed again when they
// must grow and a good share of them is dead, so appends cost amortised
// constant time and no allocation per term.
//
// The arena and the records are kept in pages, so that neither is ever
// copied to grow: a list grown by doubling allocates, over its life, up
// to four times what it ends up holding, and on a load of a save full of
// new words these two are most of what the load allocates. The first page
// doubles up to a full one, so a small index stays small.

// pageShift sets how many records a page of them holds.
const (
	pageShift = 12
	pageLen   = 1 << pageShift
)

// paged is a list kept in pages of pageLen: it grows without copying what
// it holds, but for its first page, which doubles up to pageLen.
type paged[T any] struct {
	pages [][]T
	n     int
}

// at returns the list's i-th element.
func (p *paged[T]) at(i uint32) *T { return &p.pages[i>>pageShift][i&(pageLen-1)] }

// push appends v.
func (p *paged[T]) push(v T) {
	k := p.n >> pageShift
	if k == len(p.pages) {
		p.pages = append(p.pages, make([]T, 0, min(pageLen, max(16, p.n))))
	}
	pg := p.pages[k]
	if len(pg) == cap(pg) {
		pg = slices.Grow(pg, min(len(pg), pageLen-len(pg)))
	}
	p.pages[k] = append(pg, v)
	p.n++
}

// reserve gives an empty list's first page room for n, up to a page.
func (p *paged[T]) reserve(n int) {
	if len(p.pages) == 0 {
		p.pages = append(p.pages, make([]T, 0, min(pageLen, max(16, n))))
	}
}

// reset empties the list, keeping its first page.
func (p *paged[T]) reset() {
	if len(p.pages) > 0 {
		p.pages = p.pages[:1]
		p.pages[0] = p.pages[0][:0]
	}
	p.n = 0
}

// arenaShift sets the size of an arena page, which is also what bounds a
// term's place in one: a term's at is its page << arenaShift | its offset.
const (
	arenaShift = 16
	arenaPage  = 1 << arenaShift
)

// arena holds the terms' bytes in pages of arenaPage (a longer term has a
// page of its own), so that adding one never copies the others.
type arena struct {
	pages [][]byte
	size  int // bytes added, live or not
}

// bytes returns the size bytes at at.
func (a *arena) bytes(at, size uint32) []byte {
	pg := a.pages[at>>arenaShift]
	lo := at & (arenaPage - 1)
	return pg[lo : lo+size : lo+size]
}

// add appends b and returns where it is.
func (a *arena) add(b []byte) uint32 {
	k := len(a.pages) - 1
	if k < 0 || len(a.pages[k])+len(b) > arenaPage {
		c := arenaPage
		if k < 0 {
			c = max(256, len(b))
		}
		a.pages = append(a.pages, make([]byte, 0, max(c, len(b))))
		k++
	}
	pg := a.pages[k]
	if len(pg)+len(b) > cap(pg) {
		// Only the first page is ever short of room: double it.
		pg = slices.Grow(pg, min(arenaPage, max(2*cap(pg), len(pg)+len(b)))-len(pg))
	}
	at := uint32(k)<<arenaShift | uint32(len(pg))
	a.pages[k] = append(pg, b...)
	a.size += len(b)
	return at
}

// termInfo is what the index keeps per term id.
type termInfo struct {
	at, size uint32 // the term's bytes in the arena; size 0 once forgotten
	off      uint32 // its postings: slotsOf and tfOf from off, n of them
	n        uint32 // closed texts holding it (its document frequency)
	room     uint32 // postings its run has room for
	// What bounds its score in any closed text: the largest term
	// frequency in its postings and the shortest text holding it, each
	// held at most at math.MaxUint16 (which for maxTF means any; see
	// bounds), so the record takes 28 bytes. Removal leaves them loose,
	// never too tight.
	maxTF, minDL uint16
	open         int32 // how many times the open stretch holds it
}

// bounds returns the largest term frequency and the shortest text length
// that bound the term's score in any closed text.
func (t *termInfo) bounds() (tf, dl float64) {
	tf = float64(t.maxTF)
	if t.maxTF == math.MaxUint16 {
		tf = math.MaxInt32
	}
	return tf, float64(t.minDL)
}

// held16 is n held at most at math.MaxUint16.
func held16(n int32) uint16 { return uint16(min(n, math.MaxUint16)) }

// bigTF marks, in tfOf, a term frequency too large for a byte: the exact
// count is in index.bigTF.
const bigTF = math.MaxUint8

// tfKey keys index.bigTF.
func tfKey(id uint32, s int32) uint64 { return uint64(id)<<32 | uint64(uint32(s)) }

// termBytes returns term id's bytes, which alias the arena: valid until
// the next term is added.
func (ix *index) termBytes(id uint32) []byte {
	t := ix.info(id)
	return ix.arena.bytes(t.at, t.size)
}

// info returns term id's record.
func (ix *index) info(id uint32) *termInfo { return ix.terms.at(id) }

// term returns term id as a string ("" once it is forgotten).
func (ix *index) term(id uint32) string { return string(ix.termBytes(id)) }

// The table from a term's hash to its id is cut into buckets, each an
// open-addressing table with linear probing, chosen by the hash's top
// bits through a directory (extendible hashing): a bucket that is full
// doubles up to bucketLen, then splits in two, so the table grows a
// bucket at a time rather than by a copy of it all at twice its size,
// which on a load of new words allocated twice what the table ends up
// holding.

// bucketLen is the most places a bucket has.
const bucketLen = 1 << 12

// bucket is one part of the table: term ids plus one, 0 free, at most
// half full; depth is how many of a hash's top bits its terms share.
type bucket struct {
	places []uint32
	n      int
	depth  uint8
}

// termTable is the vocabulary's table: dir holds, by the top depth bits
// of a term's hash, the bucket (in buckets) that has it.
type termTable struct {
	dir     []int32
	buckets []bucket
	depth   uint8
}

// hash is term's hash.
func (ix *index) hash(term []byte) uint64 { return maphash.Bytes(ix.seed, term) }

// at is where in the directory a hash's bucket is: its top depth bits.
func (tt *termTable) at(h uint64) uint64 { return h >> (64 - uint(tt.depth)) }

// bucketOf returns the bucket a hash belongs in.
func (tt *termTable) bucketOf(h uint64) *bucket { return &tt.buckets[tt.dir[tt.at(h)]] }

// lookup returns the id of term, if the vocabulary holds it.
func (ix *index) lookup(term []byte) (uint32, bool) {
	if ix.nterms == 0 {
		return 0, false
	}
	return ix.lookupHashed(term, ix.hash(term))
}

// lookupHashed is lookup of a term whose hash is h, for intern, which
// places a new term by the same hash rather than computing it again.
func (ix *index) lookupHashed(term []byte, h uint64) (uint32, bool) {
	b := ix.table.bucketOf(h)
	mask := len(b.places) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := b.places[i]
		if e == 0 {
			return 0, false
		}
		if string(ix.termBytes(e-1)) == string(term) {
			return e - 1, true
		}
	}
}

// intern returns the term's id, adding it to the vocabulary if new.
func (ix *index) intern(term []byte) uint32 {
	h := ix.hash(term)
	if ix.nterms > 0 {
		if id, ok := ix.lookupHashed(term, h); ok {
			return id
		}
	}
	id := uint32(ix.terms.n)
	ix.terms.push(termInfo{at: ix.arena.add(term), size: uint32(len(term))})
	ix.place(id, h)
	ix.nterms++
	return id
}

// place puts term id, whose hash is h, in the first free place from its
// home in its bucket, making room first if the bucket is full.
func (ix *index) place(id uint32, h uint64) {
	tt := &ix.table
	if len(tt.buckets) == 0 {
		tt.buckets = []bucket{{places: make([]uint32, 16)}}
		tt.dir = []int32{0}
	}
	b := tt.bucketOf(h)
	for 2*(b.n+1) > len(b.places) {
		if len(b.places) < bucketLen {
			ix.regrowBucket(b)
		} else {
			ix.split(tt.at(h))
		}
		b = tt.bucketOf(h)
	}
	b.put(id, h)
}

// put puts term id, whose hash is h, in b, which has room.
func (b *bucket) put(id uint32, h uint64) {
	mask := len(b.places) - 1
	i := int(h) & mask
	for b.places[i] != 0 {
		i = (i + 1) & mask
	}
	b.places[i] = id + 1
	b.n++
}

// regrowBucket lays bucket b out again at twice its size.
func (ix *index) regrowBucket(b *bucket) {
	old := b.places
	b.places, b.n = make([]uint32, 2*len(old)), 0
	for _, e := range old {
		if e != 0 {
			b.put(e-1, ix.hash(ix.termBytes(e-1)))
		}
	}
}

// split moves the terms of the bucket at directory entry at whose next
// hash bit is set to a new bucket, doubling the directory first if the
// bucket's terms share all its bits.
func (ix *index) split(at uint64) {
	tt := &ix.table
	k := tt.dir[at]
	if tt.buckets[k].depth == tt.depth {
		dir := make([]int32, 2*len(tt.dir))
		for i := range dir {
			dir[i] = tt.dir[i>>1]
		}
		tt.dir = dir
		tt.depth++
		at <<= 1
	}
	// The bucket's entries are the run of those sharing its depth's top
	// bits; the upper half of the run now leads to the new one.
	width := uint(tt.depth - tt.buckets[k].depth)
	from := at >> width << width
	half := uint64(1) << (width - 1)
	tt.buckets[k].depth++
	c := int32(len(tt.buckets))
	tt.buckets = append(tt.buckets, bucket{places: make([]uint32, bucketLen), depth: tt.buckets[k].depth})
	for i := from + half; i < from+2*half; i++ {
		tt.dir[i] = c
	}
	// Each term is taken out and put back, in the new bucket or in its
	// own again, in place: from just after a free place and once around,
	// every term still to be put back lies after every free place on its
	// way from its home, so each is put where a lookup finds it.
	b := &tt.buckets[k]
	mask := len(b.places) - 1
	start := 0
	for b.places[start] != 0 {
		start++ // the bucket is at most half full: there is a free place
	}
	for j := range len(b.places) {
		i := (start + 1 + j) & mask
		e := b.places[i]
		if e == 0 {
			continue
		}
		b.places[i] = 0
		b.n--
		h := ix.hash(ix.termBytes(e - 1))
		tt.bucketOf(h).put(e-1, h)
	}
}

// unplace takes term id out of the table, moving back the entries after
// it that would otherwise be cut off from their homes (linear probing's
// deletion, which leaves no tombstones).
func (ix *index) unplace(id uint32) {
	b := ix.table.bucketOf(ix.hash(ix.termBytes(id)))
	mask := len(b.places) - 1
	home := func(e uint32) int { return int(ix.hash(ix.termBytes(e-1))) & mask }
	i := home(id + 1)
	for b.places[i] != id+1 {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; b.places[j] != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole at i unless its home lies
		// cyclically in (i, j].
		if h := home(b.places[j]); (j-h)&mask >= (j-i)&mask {
			b.places[i] = b.places[j]
			i = j
		}
	}
	b.places[i] = 0
	b.n--
}

// forget drops term id from the vocabulary; its id is never given again.
func (ix *index) forget(id uint32) {
	t := ix.info(id)
	ix.unplace(id)
	ix.nterms--
	ix.deadBytes += int(t.size)
	ix.deadPostings += int(t.room)
	*t = termInfo{}
	if ix.deadBytes > 4096 && 2*ix.deadBytes > ix.arena.size {
		ix.packArena()
	}
}

// packArena copies the live terms' bytes to a new arena.
func (ix *index) packArena() {
	var packed arena
	for id := range uint32(ix.terms.n) {
		if t := ix.info(id); t.size > 0 {
			t.at = packed.add(ix.arena.bytes(t.at, t.size))
		}
	}
	ix.arena, ix.deadBytes = packed, 0
}

// list returns term id's postings: the slots holding it, ascending, and
// beside each its term frequency as tfAt reads it. Both alias the index.
func (ix *index) list(id uint32) ([]int32, []uint8) {
	t := ix.info(id)
	lo, hi := t.off, t.off+t.n
	return ix.slotsOf[lo:hi:hi], ix.tfOf[lo:hi:hi]
}

// tfAt is the term frequency a posting of term id in slot s keeps as b.
func (ix *index) tfAt(id uint32, s int32, b uint8) int32 {
	if b == bigTF {
		return ix.bigTF[tfKey(id, s)]
	}
	return int32(b)
}

// addPosting records that closed slot s holds term id tf times, keeping the
// list sorted by slot and the term's bounds up to date. A new slot is the
// highest but for one reused after a removal, which is inserted in place.
func (ix *index) addPosting(id uint32, s int32, tf int32) {
	if ix.bulk {
		if s != ix.pendingSlot {
			ix.pending.push(textMark | uint64(uint32(s)))
			ix.pendingSlot = s
		}
		ix.pending.push(uint64(id)<<32 | uint64(uint32(tf)))
		return
	}
	ix.post(id, s, tf)
}

// post is addPosting outside a bulk build.
func (ix *index) post(id uint32, s int32, tf int32) {
	t := ix.info(id)
	if t.n == t.room {
		ix.regrow(id)
	}
	n := int(t.n)
	lo := int(t.off)
	slots, tfs := ix.slotsOf[lo:lo+n+1], ix.tfOf[lo:lo+n+1]
	i := n
	if n > 0 && slots[n-1] >= s {
		i = seek(slots[:n], 0, s)
		copy(slots[i+1:], slots[i:n])
		copy(tfs[i+1:], tfs[i:n])
	}
	slots[i] = s
	if tf >= bigTF {
		if ix.bigTF == nil {
			ix.bigTF = make(map[uint64]int32)
		}
		ix.bigTF[tfKey(id, s)] = tf
		tfs[i] = bigTF
	} else {
		tfs[i] = uint8(tf)
	}
	dl := held16(ix.lens[s])
	t.maxTF = max(t.maxTF, held16(tf))
	if t.n == 0 || dl < t.minDL {
		t.minDL = dl
	}
	t.n++
}

// removePosting takes closed slot s out of term id's postings, if it is
// there, and reports whether it was.
func (ix *index) removePosting(id uint32, s int32) bool {
	slots, tfs := ix.list(id)
	i := seek(slots, 0, s)
	if i == len(slots) || slots[i] != s {
		return false
	}
	if tfs[i] == bigTF {
		delete(ix.bigTF, tfKey(id, s))
	}
	copy(slots[i:], slots[i+1:])
	copy(tfs[i:], tfs[i+1:])
	ix.info(id).n--
	ix.rebound(id)
	return true
}

// removePostings removes term id's postings in the slots dead marks, and
// reports whether it held any.
func (ix *index) removePostings(id uint32, dead []bool) bool {
	slots, tfs := ix.list(id)
	k := 0
	for j, s := range slots {
		if !dead[s] {
			slots[k], tfs[k] = s, tfs[j]
			k++
		} else if tfs[j] == bigTF {
			delete(ix.bigTF, tfKey(id, s))
		}
	}
	if k == len(slots) {
		return false
	}
	ix.info(id).n = uint32(k)
	ix.rebound(id)
	return true
}

// rebound computes again what bounds term id's score, after postings of
// it were removed.
func (ix *index) rebound(id uint32) {
	t := ix.info(id)
	t.maxTF, t.minDL = 0, 0
	slots, tfs := ix.list(id)
	for j, sl := range slots {
		t.maxTF = max(t.maxTF, held16(ix.tfAt(id, sl, tfs[j])))
		if dl := held16(ix.lens[sl]); t.minDL == 0 || dl < t.minDL {
			t.minDL = dl
		}
	}
}

// regrow gives term id's full run more room: in place when it is the last
// run, else as a new run at the end, packing every run first when the
// arrays are full and at least an eighth of them is dead.
//
// A run grows by a quarter, so a term moves once per quarter it grows and
// its moves copy four postings per posting added; a move leaves at most
// nine dead places per posting added since its run was laid out (a run
// being packed with an eighth of room), so packing, which copies the live
// postings once, happens at most once per len/72 postings added: every
// posting added costs a bounded number of copies, whatever the order.
func (ix *index) regrow(id uint32) {
	t := ix.info(id)
	room := t.room + t.room/4 + 2
	if t.off+t.room == uint32(len(ix.slotsOf)) {
		ix.extend(int(room - t.room))
		t.room = room
		return
	}
	if len(ix.slotsOf)+int(room) > cap(ix.slotsOf) && 8*ix.deadPostings > len(ix.slotsOf) {
		ix.packPostings(id, room)
		return
	}
	from := int(t.off)
	t.off = uint32(len(ix.slotsOf))
	ix.extend(int(room))
	copy(ix.slotsOf[t.off:], ix.slotsOf[from:from+int(t.n)])
	copy(ix.tfOf[t.off:], ix.tfOf[from:from+int(t.n)])
	ix.deadPostings += int(t.room)
	t.room = room
}

// extend lengthens the posting arrays by n.
func (ix *index) extend(n int) {
	ix.slotsOf = slices.Grow(ix.slotsOf, n)[:len(ix.slotsOf)+n]
	ix.tfOf = slices.Grow(ix.tfOf, n)[:len(ix.tfOf)+n]
}

// textMark marks, in index.pending, where a text's postings start: its
// slot is in the low 32 bits, where a posting has its count (no term has
// the id a mark has in the high ones).
const textMark = uint64(noTerm) << 32

// startBulk is called before many texts are added at once (a load): their
// postings wait in a list until endBulk, which counts them by term and
// lays every run out once with room for them. Appending them one by one
// would move the runs of common terms again and again, and a load would
// allocate many times what it builds. The texts are at most texts, so
// their records and their keys' table are allocated once at the size they
// need; the postings, about hint of them, wait in pages, which grow
// without copying, the first one sized for them.
func (ix *index) startBulk(texts, hint int) {
	ix.slots = slices.Grow(ix.slots, texts)
	ix.lens = slices.Grow(ix.lens, texts)
	ix.owner = slices.Grow(ix.owner, texts)
	if n := 2 * (ix.keyed + texts); n > len(ix.byKey) {
		ix.rekey(1 << mbits.Len(uint(n-1)))
	}
	ix.bulk = true
	ix.pending.reserve(hint + texts)
	ix.pendingSlot = -1
}

// endBulk lays out the postings added since startBulk.
func (ix *index) endBulk() {
	ix.bulk = false
	if ix.pending.n == 0 {
		return
	}
	// Every run is laid out anew, so until then a term's room counts the
	// postings waiting for it, rather than a list of counts beside the
	// records.
	for id := range uint32(ix.terms.n) {
		ix.info(id).room = 0
	}
	for _, pg := range ix.pending.pages {
		for _, p := range pg {
			if p&textMark != textMark {
				ix.info(uint32(p>>32)).room++
			}
		}
	}
	ix.layOut(-1, func(_ uint32, t *termInfo) uint32 { return packedRoom(t.n + t.room) })
	var s int32
	for _, pg := range ix.pending.pages {
		for _, p := range pg {
			if p&textMark == textMark {
				s = int32(uint32(p))
				continue
			}
			ix.post(uint32(p>>32), s, int32(uint32(p)))
		}
	}
	ix.pending = paged[uint64]{}
}

// packPostings copies every run to new arrays, each with room for an
// eighth more postings than it holds but term id's, which gets room, and
// last, so it can grow in place.
func (ix *index) packPostings(id uint32, room uint32) {
	ix.layOut(int64(id), func(j uint32, t *termInfo) uint32 {
		if j == id {
			return room
		}
		return packedRoom(t.n)
	})
}

// layOut copies every run to new arrays of just the size the rooms add up
// to, in term order but for term last's, which goes at the end (none when
// last is -1).
func (ix *index) layOut(last int64, room func(id uint32, t *termInfo) uint32) {
	size := 0
	for j := range uint32(ix.terms.n) {
		if t := ix.info(j); t.size > 0 {
			size += int(room(j, t))
		}
	}
	slots, tfs := make([]int32, 0, size), make([]uint8, 0, size)
	move := func(j uint32) {
		t := ix.info(j)
		r := room(j, t)
		lo, hi := t.off, t.off+t.n
		t.off = uint32(len(slots))
		slots = append(slots, ix.slotsOf[lo:hi]...)
		tfs = append(tfs, ix.tfOf[lo:hi]...)
		slots, tfs = slots[:len(slots)+int(r-t.n)], tfs[:len(tfs)+int(r-t.n)]
		t.room = r
	}
	for j := range uint32(ix.terms.n) {
		if int64(j) != last && ix.info(j).size > 0 {
			move(j)
		}
	}
	if last >= 0 {
		move(uint32(last))
	}
	ix.slotsOf, ix.tfOf, ix.deadPostings = slots, tfs, 0
}

// packedRoom is the room packing gives a run of n postings.
func packedRoom(n uint32) uint32 { return n + n/8 + 1 }

// seek returns the first position at or after from whose slot is at least
// s, galloping from from, so walking a list with ascending targets costs
// the logarithm of each gap.
func seek(list []int32, from int, s int32) int {
	if from >= len(list) || list[from] >= s {
		return from
	}
	// list[lo] < s throughout; find the first hi with list[hi] >= s.
	lo, step := from, 1
	hi := lo + step
	for hi < len(list) && list[hi] < s {
		lo = hi
		step <<= 1
		hi = lo + step
	}
	hi = min(hi, len(list))
	for lo+1 < hi {
		mid := int(uint(lo+hi) >> 1)
		if list[mid] < s {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// tf returns how many times closed slot s holds term id.
func (ix *index) tf(id uint32, s int32) int32 {
	slots, tfs := ix.list(id)
	lo, hi := 0, len(slots)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if slots[mid] < s {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(slots) && slots[lo] == s {
		return ix.tfAt(id, s, tfs[lo])
	}
	return 0
}
