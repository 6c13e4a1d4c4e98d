package sandbox

import (
	"context"
	"slices"
)

// The order in which host calls' answers reach a script is the one source
// of difference between two runs of the same code that is not a value the
// script reads: a Promise.race, or which continuation runs first, depends
// on it. Entropy.Order records it by call index; a replay holds answers
// back until the ones recorded before them have been delivered.

// callIndexKey is the context key of CallIndex.
type callIndexKey struct{}

// withCallIndex returns ctx carrying the index of a host call.
func withCallIndex(ctx context.Context, index int) context.Context {
	return context.WithValue(ctx, callIndexKey{}, index)
}

// CallIndex returns the position of the host call whose context is ctx
// among the calls of its execution that reached the host, in the order the
// script made them: 0 for the first. Free calls (see [FreeHost]) and calls
// the sandbox refused itself (the call limit, oversized arguments) have no
// index and do not count. It is the same in both modes, and two runs of
// the same code that make the same calls in the same order number them
// alike, which is what Entropy.Order names calls by. ok is false for a
// context that does not come from a host call.
func CallIndex(ctx context.Context) (index int, ok bool) {
	index, ok = ctx.Value(callIndexKey{}).(int)
	return index, ok
}

// orderReplay delivers answers in a recorded order (Entropy.Order). It
// is used on the loop goroutine only.
type orderReplay struct {
	want []int // the recorded order still to come
	left map[int]bool
	held map[int]callResult // by call index: answers waiting for their turn
}

func newOrderReplay(order []int) *orderReplay {
	if len(order) == 0 {
		return nil
	}
	o := &orderReplay{want: slices.Clone(order), left: make(map[int]bool, len(order)), held: map[int]callResult{}}
	for _, i := range order {
		o.left[i] = true
	}
	return o
}

// take is given an answer that has just arrived for call index and
// returns the answers to deliver now, in order: none if it must wait,
// else it and any held answers whose turn it opens.
func (o *orderReplay) take(index int, r callResult) []callResult {
	if o == nil || len(o.want) == 0 || !o.left[index] {
		return []callResult{r}
	}
	if o.want[0] != index {
		o.held[index] = r
		return nil
	}
	out := []callResult{r}
	o.next()
	for len(o.want) > 0 {
		h, ok := o.held[o.want[0]]
		if !ok {
			break
		}
		delete(o.held, o.want[0])
		out = append(out, h)
		o.next()
	}
	return out
}

// next moves past the head of the recorded order.
func (o *orderReplay) next() {
	delete(o.left, o.want[0])
	o.want = o.want[1:]
}

// stalled reports that every call in flight (inFlight, held ones
// included) has answered and the next recorded one was never made: the
// run no longer follows the record.
func (o *orderReplay) stalled(inFlight int) bool {
	return o != nil && len(o.held) > 0 && len(o.held) == inFlight
}

// release drops the rest of the recorded order and returns the held
// answers in the order recorded.
func (o *orderReplay) release() []callResult {
	var out []callResult
	for _, i := range o.want {
		if h, ok := o.held[i]; ok {
			out = append(out, h)
		}
	}
	o.want, o.left, o.held = nil, nil, nil
	return out
}

// heldResults returns the answers held back, for an execution that ends
// before their turn: they are recorded, never delivered.
func (o *orderReplay) heldResults() []callResult {
	if o == nil {
		return nil
	}
	return o.release()
}
