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
// from Math.random, in order: a generic record and replay of the sources
// that make two runs of the same code differ. Set [RunOptions.Entropy] to
// record them in [Result.Entropy]; a run given the record of an earlier
// one reads the same values in the same order, then live ones.
type Entropy struct {
	// Times are clock readings in Unix nanoseconds.
	Times []int64 `json:"times,omitempty"`
	// Random are the values Math.random returned.
	Random []float64 `json:"random,omitempty"`
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
