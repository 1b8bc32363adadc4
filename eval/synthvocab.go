package main

import "fmt"

// vocab is what one synthetic conversation talks about: the kinds of fact
// it plants and the values their slots draw from, the past events its
// temporal facts name, the inferences it asks for and the topics of its
// small talk. The committed set's conversations share one, everything, so
// the same kinds of fact, often with the same values, come back in every
// conversation; chained, they make a history that returns to the same
// subjects week after week. Conversations between different people talk
// about different things, which distinctVocabs deals them.
type vocab struct {
	single     []factKind
	multi      []hopKind
	events     []pastEvent
	inferences []inference
	topics     []*topic
}

// pastEvent is one element of pastEvents.
type pastEvent = struct{ past, base, noun string }

// everything is the committed set's vocabulary: every kind of fact, every
// value, every event, inference and topic.
var everything = &vocab{single: singleHop, multi: multiHop, events: pastEvents, inferences: inferences, topics: topics}

// chainTopicUses is how many conversations of a distinct chain make small
// talk on one topic: 14 topics over ten conversations give each four or
// five, where the committed set's draw from all 14.
const chainTopicUses = 3

// distinctVocabs deals n conversations vocabularies that share no value.
// A kind of fact goes to as many conversations as its shortest slot list
// can give both speakers values of their own (two a slot, four for a kind
// whose two halves come from one list), and the kinds are dealt round the
// conversations in turn, so each gets about as many (six or seven of the
// 18 single-hop kinds for ten conversations, against all 18 in the
// committed set) and no two speakers of the chain share a value. The past
// events are split among them, each inference's answers go two to a
// conversation, and each small-talk topic goes to chainTopicUses of them.
func distinctVocabs(r *rng, n int) []*vocab {
	vs := make([]*vocab, n)
	for i := range vs {
		vs[i] = &vocab{}
	}
	next := 0
	deal := func(uses int, give func(v *vocab, use int)) {
		for u := range min(uses, n) {
			give(vs[next], u)
			next = (next + 1) % n
		}
	}
	for _, i := range shuffled(r, len(singleHop)) {
		k := singleHop[i]
		lists := shuffledSlots(r, k.slots)
		deal(shortest(lists)/2, func(v *vocab, u int) {
			k.slots = chunks(lists, u, 2)
			v.single = append(v.single, k)
		})
	}
	for _, i := range shuffled(r, len(multiHop)) {
		k := multiHop[i]
		lists, per := shuffledSlots(r, k.slots), 2
		if k.pair {
			per = 4
		}
		deal(shortest(lists)/per, func(v *vocab, u int) {
			k.slots = chunks(lists, u, per)
			v.multi = append(v.multi, k)
		})
	}
	for _, i := range shuffled(r, len(inferences)) {
		inf := inferences[i]
		order := shuffled(r, len(inf.answers))
		deal(len(order)/2, func(v *vocab, u int) {
			answers := inf.answers[:0:0]
			for _, a := range order[2*u : 2*u+2] {
				answers = append(answers, inf.answers[a])
			}
			v.inferences = append(v.inferences, inference{ask: inf.ask, answers: answers})
		})
	}
	events := draws(r, pastEvents, len(pastEvents))
	for j, v := range vs {
		v.events = events[j*len(events)/n : (j+1)*len(events)/n]
	}
	for _, i := range shuffled(r, len(topics)) {
		deal(chainTopicUses, func(v *vocab, _ int) { v.topics = append(v.topics, topics[i]) })
	}
	return vs
}

// synthesizeDistinct returns n synthetic conversations, at most ten,
// drawn from seed, whose people and subjects differ: no two share a
// speaker's name or a fact's value, and each talks about its own kinds of
// fact, events and topics (distinctVocabs). They are what a chain of
// conversations between different people looks like.
func synthesizeDistinct(seed uint64, n int) ([]byte, error) {
	if n > len(firstNames)/2 {
		return nil, fmt.Errorf("%d distinct conversations need %d names; there are %d", n, 2*n, len(firstNames))
	}
	r := newRNG(seed)
	names := draws(r, firstNames, 2*n)
	var convs []*synthConv
	for i, v := range distinctVocabs(r, n) {
		convs = append(convs, newSynthConv(r, fmt.Sprintf("distinct-%d", i+1), names[2*i], names[2*i+1], v))
	}
	return encodeSynth(convs), nil
}

// shuffled returns 0 to n-1 in random order.
func shuffled(r *rng, n int) []int {
	order := indexes(n)
	shuffle(r, order)
	return order
}

// shuffledSlots returns a shuffled copy of each slot's values.
func shuffledSlots(r *rng, slots [][]string) [][]string {
	out := make([][]string, len(slots))
	for i, list := range slots {
		out[i] = draws(r, list, len(list))
	}
	return out
}

// shortest is the length of the shortest list.
func shortest(lists [][]string) int {
	n := len(lists[0])
	for _, l := range lists[1:] {
		n = min(n, len(l))
	}
	return n
}

// chunks returns the u-th run of per values of every list.
func chunks(lists [][]string, u, per int) [][]string {
	out := make([][]string, len(lists))
	for i, l := range lists {
		out[i] = l[u*per : (u+1)*per]
	}
	return out
}
