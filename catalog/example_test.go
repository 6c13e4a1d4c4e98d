package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/brakinglab/codemode-go/catalog"
)

// LapArgs are the arguments of the example's getLap function.
type LapArgs struct {
	SessionID string `json:"sessionId" validate:"required" jsonschema:"Session ID"`
	Lap       int    `json:"lap" validate:"min=1"`
}

// Lap is the example's getLap result.
type Lap struct {
	Lap    int     `json:"lap"`
	TimeMs int     `json:"timeMs"`
	Note   *string `json:"note"`
}

// Verdict is one corner verdict of the example's rateCorner function.
type Verdict struct {
	SessionID string `json:"sessionId" validate:"required"`
	Corner    int    `json:"corner" validate:"min=1"`
	Verdict   string `json:"verdict" validate:"oneof=good needs_work critical"`
}

func exampleCatalog() *catalog.Catalog {
	c, err := catalog.New("brakinglab", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(c, catalog.Func[LapArgs, Lap]{
		Name:        "getLap",
		Description: "Returns one lap of a session.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{"sessions:read"},
		Handler: func(ctx context.Context, in LapArgs) (Lap, error) {
			if in.SessionID != "ses_1" {
				return Lap{}, catalog.NotFound("no session %s; list sessions with getSessions", in.SessionID)
			}
			return Lap{Lap: in.Lap, TimeMs: 83456}, nil
		},
	})
	catalog.MustAdd(c, catalog.Func[Verdict, Verdict]{
		Name:        "rateCorner",
		Description: "Stores a verdict for one corner.",
		Tier:        catalog.Mutating,
		Scopes:      []string{"reports:write"},
		Handler: func(ctx context.Context, in Verdict) (Verdict, error) {
			fmt.Println("saved corner", in.Corner)
			return in, nil
		},
	})
	return c
}

func signedIn() context.Context {
	return catalog.WithPrincipal(context.Background(), catalog.Principal{
		Subject: "driver_1", ClientID: "claude", Scopes: []string{"sessions:read", "reports:write"},
	})
}

// printErr prints the JSON a model sees for err.
func printErr(err error) {
	b, _ := json.Marshal(err)
	fmt.Println(string(b))
}

// Register typed Go functions; mistakes are reported here, not at call time.
func ExampleAdd() {
	c, _ := catalog.New("brakinglab", nil)
	err := catalog.Add(c, catalog.Func[LapArgs, Lap]{
		Name:    "getLap",
		Tier:    catalog.ReadOnly,
		Handler: func(ctx context.Context, in LapArgs) (Lap, error) { return Lap{Lap: in.Lap}, nil },
	})
	fmt.Println(err)
	err = catalog.Add(c, catalog.Func[LapArgs, Lap]{
		Name:    "get-lap",
		Handler: func(ctx context.Context, in LapArgs) (Lap, error) { return Lap{}, nil },
	})
	fmt.Println(err)
	for _, f := range c.Functions() {
		fmt.Println(f.Name, f.Tier, f.In.Name(), f.Out.Name())
	}
	// Output:
	// <nil>
	// catalog: function name "get-lap" is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)
	// getLap READ-ONLY LapArgs Lap
}

// Call a function with JSON arguments; nulls are stripped from the result.
func ExampleCatalog_Call() {
	c := exampleCatalog()
	out, err := c.Call(signedIn(), "getLap", json.RawMessage(`{"sessionId":"ses_1","lap":3}`))
	fmt.Println(string(out), err)

	_, err = c.Call(signedIn(), "getLap", json.RawMessage(`{"sessionId":"ses_9","lap":3}`))
	printErr(err)
	// Output:
	// {"lap":3,"timeMs":83456} <nil>
	// {"error":"no session ses_9; list sessions with getSessions","code":"not_found"}
}

// Bad arguments give every issue at once, each with a JSON path: a
// missing field, a wrong type, an unknown field with the nearest declared
// one, and a value its validate tag refuses.
func ExampleCatalog_Call_validationError() {
	c := exampleCatalog()
	_, err := c.Call(signedIn(), "rateCorner", json.RawMessage(`{"corner":"3","verdict":"meh","session":"ses_1"}`))
	printErr(err)
	// Output:
	// {"error":"Validation failed","issues":[{"path":["sessionId"],"message":"Required field"},{"path":["corner"],"message":"Expected number, got string"},{"path":["session"],"message":"Unknown field (did you mean \"sessionId\"?)"},{"path":["verdict"],"message":"Must be one of: good, needs_work, critical"}]}
}

// A READ-ONLY function ignores members it does not declare, and says so:
// the warning names the nearest declared field.
func ExampleCatalog_CallWithWarnings() {
	c := exampleCatalog()
	out, warns, err := c.CallWithWarnings(signedIn(), "getLap", json.RawMessage(`{"sessionId":"ses_1","lap":3,"session":"ses_2"}`))
	fmt.Println(string(out), err)
	for _, w := range warns {
		fmt.Println(w.Message)
	}
	// Output:
	// {"lap":3,"timeMs":83456} <nil>
	// getLap ignored unknown field "session" (did you mean "sessionId"?)
}

// A dry run checks arguments of a MUTATING or CREATIVE function without
// calling its handler.
func ExampleCatalog_Call_dryRun() {
	c := exampleCatalog()
	out, err := c.Call(signedIn(), "rateCorner", json.RawMessage(`{"sessionId":"ses_1","corner":3,"verdict":"good","_validateOnly":true}`))
	fmt.Println(string(out), err)

	_, err = c.Call(signedIn(), "rateCorner", json.RawMessage(`{"sessionId":"ses_1","corner":0,"verdict":"meh","_validateOnly":true}`))
	printErr(err)

	out, err = c.Call(signedIn(), "rateCorner", json.RawMessage(`{"sessionId":"ses_1","corner":3,"verdict":"good"}`))
	fmt.Println(string(out), err)
	// Output:
	// {"valid":true} <nil>
	// {"error":"Validation failed","issues":[{"path":["corner"],"message":"Must be at least 1"},{"path":["verdict"],"message":"Must be one of: good, needs_work, critical"}]}
	// saved corner 3
	// {"sessionId":"ses_1","corner":3,"verdict":"good"} <nil>
}

// Callers without the function's scopes get an error naming them.
func ExampleScopeError() {
	c := exampleCatalog()
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "driver_1", Scopes: []string{"sessions:read"}})
	_, err := c.Call(ctx, "rateCorner", json.RawMessage(`{"sessionId":"ses_1","corner":3,"verdict":"good"}`))
	fmt.Println(err)
	// Output:
	// brakinglab.rateCorner requires scope reports:write, which this session was not granted; ask the user to reconnect and grant it
}
