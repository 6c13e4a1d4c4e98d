package mcpsource

import "encoding/json"

// contentSchema is the output schema declared for a tool that has none:
// what a script receives from a content-only result (contentValue), so
// that the declaration and the value agree. One text block is a string,
// one other block an object (ContentBlock), several an array of both,
// none null. One object type with optional members, rather than one per
// kind of block, keeps each such declaration short:
//
//	Promise<string | ContentBlock | (string | ContentBlock)[] | null>
var contentSchema = json.RawMessage(`{
  "anyOf": [
    {"type": "string"},
    {"$ref": "#/$defs/ContentBlock"},
    {"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/ContentBlock"}]}},
    {"type": "null"}
  ],
  "$defs": {
    "ContentBlock": {"type": "object",
      "description": "A block of a tool's content other than text (text is a string): image or audio {type, mimeType, data} with data in base64; resource_link {type, uri, name, mimeType}; resource {type, uri, mimeType, text or blob} with blob in base64.",
      "properties": {
        "type": {"enum": ["image", "audio", "resource_link", "resource"]},
        "mimeType": {"type": "string"}, "data": {"type": "string"},
        "uri": {"type": "string"}, "name": {"type": "string"},
        "text": {"type": "string"}, "blob": {"type": "string"}
      },
      "required": ["type"]}
  }
}`)

// outputSchemaOf is the output schema a tool's function is declared
// with: its own outputSchema, else contentSchema.
func outputSchemaOf(schema any) (json.RawMessage, error) {
	if schema == nil {
		return contentSchema, nil
	}
	return json.Marshal(schema)
}
