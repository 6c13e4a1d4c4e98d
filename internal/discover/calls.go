package discover

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Namespace is the global that holds the discovery functions in every
// execution (codemode.DiscoveryNamespace).
const Namespace = "codemode"

// Limits of the discovery functions, so one call cannot produce more text
// than a script may return.
const (
	// DefaultSearchLimit is how many hits codemode.search returns when
	// the script gives no limit.
	DefaultSearchLimit = 5
	// MaxSearchLimit is the most hits one search returns.
	MaxSearchLimit = 50
	// MaxDescribeNames is the most functions one describe declares.
	MaxDescribeNames = 50
	// MaxQueryBytes is the longest query a search takes.
	MaxQueryBytes = 1000
)

// Hit is one codemode.search answer.
type Hit struct {
	Name    string `json:"name"`
	Tier    string `json:"tier"`
	Summary string `json:"summary"`
}

// Args reads the arguments of a discovery call to fn: the JSON array of
// the script's arguments.
func Args(fn string, args json.RawMessage) ([]json.RawMessage, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(args, &list); err != nil {
		return nil, errors.New(Namespace + "." + fn + ": unreadable arguments")
	}
	return list, nil
}

// NotAFunction is the error for a discovery call to fn, which is neither
// search nor describe.
func NotAFunction(fn string) error {
	return fmt.Errorf("%s.%s is not a function. Use %[1]s.search(query, { limit }) or %[1]s.describe(names)", Namespace, fn)
}

// SearchArgs reads the arguments of codemode.search(query, { limit }):
// a query of a few words and an optional whole limit, at most
// MaxSearchLimit.
func SearchArgs(args []json.RawMessage) (query string, limit int, err error) {
	const usage = `codemode.search takes a query string and optional options: codemode.search("braking consistency", { limit: 5 })`
	if len(args) == 0 || json.Unmarshal(args[0], &query) != nil || strings.TrimSpace(query) == "" {
		return "", 0, errors.New(usage)
	}
	if len(query) > MaxQueryBytes {
		return "", 0, fmt.Errorf("codemode.search: the query is %d bytes; use a few words (at most %d bytes)", len(query), MaxQueryBytes)
	}
	limit = DefaultSearchLimit
	if len(args) > 1 && string(args[1]) != "null" {
		var opts struct {
			Limit *float64 `json:"limit"`
		}
		if json.Unmarshal(args[1], &opts) != nil {
			return "", 0, errors.New(usage)
		}
		if opts.Limit != nil {
			if *opts.Limit < 1 || *opts.Limit != float64(int(*opts.Limit)) {
				return "", 0, fmt.Errorf("codemode.search: limit must be a whole number from 1 to %d", MaxSearchLimit)
			}
			limit = min(int(*opts.Limit), MaxSearchLimit)
		}
	}
	return query, limit, nil
}

// Search answers codemode.search for query: the hits among the functions
// tier names (its tier, and whether the tool binds it), each named by
// display, as JSON.
func (x *Index) Search(query string, limit int, tier func(id string) (string, bool), display func(id string) string) (json.RawMessage, error) {
	ids := x.Rank(query, limit, func(id string) bool { _, ok := tier(id); return ok })
	out := make([]Hit, len(ids))
	for i, id := range ids {
		t, _ := tier(id)
		out[i] = Hit{Name: display(id), Tier: t, Summary: x.summary[id]}
	}
	return json.Marshal(out)
}

// DescribeArgs reads the argument of codemode.describe(names): one name
// or an array of 1 to MaxDescribeNames names.
func DescribeArgs(args []json.RawMessage) ([]string, error) {
	const usage = `codemode.describe takes a function name or an array of names: codemode.describe(["getSessions"])`
	if len(args) != 1 {
		return nil, errors.New(usage)
	}
	var names []string
	if json.Unmarshal(args[0], &names) != nil {
		var one string
		if json.Unmarshal(args[0], &one) != nil {
			return nil, errors.New(usage)
		}
		names = []string{one}
	}
	if len(names) == 0 || len(names) > MaxDescribeNames {
		return nil, fmt.Errorf("codemode.describe: give 1 to %d function names", MaxDescribeNames)
	}
	return names, nil
}
