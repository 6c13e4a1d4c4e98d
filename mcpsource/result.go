package mcpsource

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// toolError is the error the model reads for a tool's own failure: its
// text as written, as a plain MCP tool call would show it.
func toolError(text string) error {
	if strings.TrimSpace(text) == "" {
		text = "the tool reported an error without a message"
	}
	return &catalog.Error{Code: catalog.CodeToolError, Message: text}
}

// errorText joins the text blocks of an isError result.
func errorText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// contentValue turns a result without structured content into the value a
// script receives: one block is its value, several an array of values,
// none null. Text is a string; images and audio are {type, mimeType,
// data} with data in base64; a resource link is {type, uri, name,
// mimeType}; an embedded resource is {type, uri, mimeType, text} or
// {…, blob} with blob in base64.
func contentValue(content []mcp.Content) any {
	vals := make([]any, 0, len(content))
	for _, c := range content {
		vals = append(vals, blockValue(c))
	}
	switch len(vals) {
	case 0:
		return nil
	case 1:
		return vals[0]
	}
	return vals
}

type mediaValue struct {
	Type     string `json:"type"`
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
}

type resourceValue struct {
	Type     string `json:"type"`
	URI      string `json:"uri"`
	Name     string `json:"name,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

func blockValue(c mcp.Content) any {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return mediaValue{"image", c.MIMEType, base64.StdEncoding.EncodeToString(c.Data)}
	case *mcp.AudioContent:
		return mediaValue{"audio", c.MIMEType, base64.StdEncoding.EncodeToString(c.Data)}
	case *mcp.ResourceLink:
		return resourceValue{Type: "resource_link", URI: c.URI, Name: c.Name, MIMEType: c.MIMEType}
	case *mcp.EmbeddedResource:
		v := resourceValue{Type: "resource"}
		if r := c.Resource; r != nil {
			v.URI, v.MIMEType, v.Text = r.URI, r.MIMEType, r.Text
			if r.Blob != nil {
				v.Blob = base64.StdEncoding.EncodeToString(r.Blob)
			}
		}
		return v
	}
	// A block type this version does not know: pass its wire form on.
	b, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	return json.RawMessage(b)
}

// resultJSON returns what a script receives for a successful result:
// structured content when present, else the content as values.
func resultJSON(res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.StructuredContent != nil {
		if raw, ok := res.StructuredContent.(json.RawMessage); ok {
			return raw, nil
		}
		return json.Marshal(res.StructuredContent)
	}
	return json.Marshal(contentValue(res.Content))
}
