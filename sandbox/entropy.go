package sandbox

import (
	"math/rand/v2"
	"sync"
	"time"
)

// MaxEntropyValues bounds how many clock readings, and separately how many
// random numbers, one execution records in [Entropy]. Past it the script
// keeps running on live values and [Entropy.Overflow] is set.
const MaxEntropyValues = 4096

// Entropy is what a script read from the clock (Date.now, new Date()) and
// from Math.random, in order, and the order in which its host calls'
// answers reached it: a generic record and replay of the sources that
// make two runs of the same code differ. Set [RunOptions.Entropy] to
// record them in [Result.Entropy]; a run given the record of an earlier
// one reads the same values in the same order, then live ones, and
// receives its host calls' answers in the recorded order (see Order).
type Entropy struct {
	// Times are clock readings in Unix nanoseconds.
	Times []int64 `json:"times,omitempty"`
	// Random are the values Math.random returned.
	Random []float64 `json:"random,omitempty"`
	// Order lists host calls by [CallPosition] Index in the order their answers
	// reached the script. A run replaying it holds back an answer that
	// arrives before the answers listed ahead of it, so that a
	// Promise.race or the order of continuations comes out as recorded
	// whatever the host's timing. An answer the list does not name (a
	// call the recorded run did not make) is delivered when it arrives;
	// when every call in flight has answered and the next listed one was
	// never made, the rest of the list is dropped and answers flow as
	// they come. At most Limits.MaxCalls entries.
	Order []int `json:"order,omitempty"`
	// Overflow reports that the script read more than MaxEntropyValues of
	// either kind: the record is incomplete, and a replay of it is not
	// deterministic past that point.
	Overflow bool `json:"overflow,omitempty"`
}

// entropySource serves one execution's clock and random numbers: first
// the replayed values, then live ones, recording each.
type entropySource struct {
	mu         sync.Mutex
	replay     Entropy
	nt, nr     int // replayed values used
	rec        Entropy
	liveRandom func() float64
}

func newEntropySource(replay *Entropy) *entropySource {
	s := &entropySource{liveRandom: rand.Float64}
	if replay != nil {
		s.replay = *replay
	}
	return s
}

// delivered records that the answer of host call index reached the
// script. It runs on the loop goroutine only.
func (s *entropySource) delivered(index int) {
	s.mu.Lock()
	s.rec.Order = append(s.rec.Order, index)
	s.mu.Unlock()
}

// now is the runtime's time source.
func (s *entropySource) now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ns int64
	if s.nt < len(s.replay.Times) {
		ns = s.replay.Times[s.nt]
		s.nt++
	} else {
		ns = time.Now().UnixNano()
	}
	if len(s.rec.Times) < MaxEntropyValues {
		s.rec.Times = append(s.rec.Times, ns)
	} else {
		s.rec.Overflow = true
	}
	return time.Unix(0, ns)
}

// random is the runtime's Math.random.
func (s *entropySource) random() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var f float64
	if s.nr < len(s.replay.Random) {
		f = s.replay.Random[s.nr]
		s.nr++
	} else {
		f = s.liveRandom()
	}
	if len(s.rec.Random) < MaxEntropyValues {
		s.rec.Random = append(s.rec.Random, f)
	} else {
		s.rec.Overflow = true
	}
	return f
}

// record returns what the script read.
func (s *entropySource) record() *Entropy {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rec
	return &r
}
