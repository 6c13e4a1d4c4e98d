package sandbox

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// The order in which host calls' answers reach a script is the one source
// of difference between two runs of the same code that is not a value the
// script reads: a Promise.race, or which continuation runs first, depends
// on it. Entropy.Order records it by call index; a replay holds answers
// back until the ones recorded before them have been delivered.

// CallPosition says where a host call stands among the calls of its
// execution. Two runs of the same code that make the same calls and
// receive their answers in the same order give each call the same
// position, in both modes.
type CallPosition struct {
	// Index is the call's place among the execution's calls that reached
	// the host, in the order the script made them: 0 for the first. Free
	// calls (see [FreeHost]) and calls the sandbox refused itself (the
	// call limit, oversized arguments) have none and do not count.
	// Entropy.Order names calls by it.
	Index int
	// Answered is how many host calls' answers had reached the script
	// when it made this call. Calls made with the same Answered were made
	// without the script seeing any answer in between: they were issued
	// together (Promise.all, a loop without await), and none can depend
	// on another's answer.
	Answered int
	// From is the Label of the sub-program (see [SubprogramHost]) whose
	// code made the call, such as "saved.weeklyReview version 3", or ""
	// when the script itself made it.
	From string
}

// callPositionKey is the context key of a host call's CallPosition.
type callPositionKey struct{}

// withCallPosition returns ctx carrying the position of a host call.
func withCallPosition(ctx context.Context, pos CallPosition) context.Context {
	return context.WithValue(ctx, callPositionKey{}, pos)
}

// PositionOf returns the position of the host call whose context is ctx;
// ok is false for a context that does not come from a host call.
func PositionOf(ctx context.Context) (pos CallPosition, ok bool) {
	pos, ok = ctx.Value(callPositionKey{}).(CallPosition)
	return pos, ok
}

// encodeCallName is how a worker sends a host call's name and position
// to the parent in one field: name NUL index NUL answered, then NUL from
// when the call came from a sub-program. No function name holds a NUL
// byte; a label may, and is last.
func encodeCallName(name string, pos CallPosition) []byte {
	a := name + "\x00" + strconv.Itoa(pos.Index) + "\x00" + strconv.Itoa(pos.Answered)
	if pos.From != "" {
		a += "\x00" + pos.From
	}
	return []byte(a)
}

// decodeCallName reverses encodeCallName; ok is false for a name sent
// without a position (a free call, a question to an Explainer).
func decodeCallName(a []byte) (name string, pos CallPosition, ok bool) {
	name, rest, found := strings.Cut(string(a), "\x00")
	if !found || name == "" {
		return string(a), CallPosition{}, false
	}
	i, n, found := strings.Cut(rest, "\x00")
	n, pos.From, _ = strings.Cut(n, "\x00")
	var err1, err2 error
	pos.Index, err1 = strconv.Atoi(i)
	pos.Answered, err2 = strconv.Atoi(n)
	if !found || err1 != nil || err2 != nil {
		return string(a), CallPosition{}, false
	}
	return name, pos, true
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
// answers in the order recorded: when the run has left the record, or
// ends before their turn (they are then recorded, never delivered). A nil
// orderReplay holds nothing.
func (o *orderReplay) release() []callResult {
	if o == nil {
		return nil
	}
	var out []callResult
	for _, i := range o.want {
		if h, ok := o.held[i]; ok {
			out = append(out, h)
		}
	}
	o.want, o.left, o.held = nil, nil, nil
	return out
}
