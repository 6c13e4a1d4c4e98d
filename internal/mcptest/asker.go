package mcptest

import (
	"context"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Asker is a user who answers every question a server asks the client
// (elicitation/create) with Action ("accept", "decline" or "cancel") and
// remembers the questions' messages. It is safe for concurrent use.
type Asker struct {
	Action string

	mu    sync.Mutex
	asked []string
}

// Handle is a go-sdk ElicitationHandler. An accepting answer carries an
// empty form, as a client showing a form without fields sends.
func (a *Asker) Handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Params.Message)
	a.mu.Unlock()
	if a.Action == "accept" {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}
	return &mcp.ElicitResult{Action: a.Action}, nil
}

// Options returns client options whose ElicitationHandler is a.Handle.
func (a *Asker) Options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: a.Handle}
}

// Asked returns the messages asked so far, in order.
func (a *Asker) Asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.asked)
}

// Take returns the messages asked since the last Take (or since the
// start), in order, and forgets them.
func (a *Asker) Take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.asked
	a.asked = nil
	return out
}
