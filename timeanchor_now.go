package byheart

// The families that mean the moment of speech itself: "I'm currently
// reading it", "I'm at the moment between jobs". They name the day the
// words were said, which the memory block's date line also tells, but a
// model reading "currently" does not always join the two; the note does.

// currently handles "currently" and "at the moment" in a sentence that is
// not told in the past: a state that holds on the day said ("I'm currently
// reading it [27 May 2023]").
func (s *scanner) currently(i int) (int, resolved, bool) {
	end := i
	if s.at(i) == "at" {
		if !s.is(i+1, "the") || !s.is(i+2, "moment") || s.toks[i+2].poss {
			return fail()
		}
		end = i + 2
	}
	if s.toks[end].poss {
		return fail()
	}
	if t := s.sentenceTense(); t&tPast != 0 && t&(tPresent|tFuture) == 0 {
		return fail() // "he was currently away": the moment the story is at
	}
	return end, dayAt(s.today), true
}
