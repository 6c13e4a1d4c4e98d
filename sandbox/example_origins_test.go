package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/brakinglab/codemode-go/sandbox"
)

// fileHost serves one function known only by its schema, and declares
// its result (sandbox.ResultDescriber).
type fileHost struct{}

func (fileHost) Functions() map[string][]string {
	return map[string][]string{"files": {"read_text_file"}}
}

func (fileHost) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"content":"brake later\nturn 3"}`), nil
}

func (fileHost) ResultShape(name string) string {
	if name == "files.read_text_file" {
		return "{ content: string }"
	}
	return ""
}

// A script reads a result as the wrong shape: the error names the call,
// its line, the declared result and the fix.
func ExampleResultDescriber() {
	sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	if err != nil {
		panic(err)
	}
	defer sb.Close()

	_, err = sb.Run(context.Background(), `const text = await files.read_text_file({ path: "notes.txt" });
return text.split("\n");`, fileHost{})
	var se *sandbox.Error
	if errors.As(err, &se) {
		fmt.Println(se.Message)
	}
	// Output:
	// TypeError: Object has no member 'split'. text is the result of files.read_text_file (line 1), declared `{ content: string }`: an object with member content, which has no member split (read at line 2): use text.content, the string in it, e.g. text.content.split(…).
}
