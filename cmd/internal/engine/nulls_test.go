package engine

import (
	"encoding/json"
	"testing"
)

// createEntities is server-memory's create_entities input schema.
const createEntities = `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"entityType":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}},"required":["name","entityType","observations"]}}},"required":["entities"]}`

func TestEmptyNulls(t *testing.T) {
	withRefs := `{"type":"object","$defs":{"tag":{"type":"object","properties":{"labels":{"type":"array"}}}},"properties":{"tags":{"type":"array","items":{"$ref":"#/$defs/tag"}},"meta":{"type":"object"},"note":{"type":["string","null"]},"either":{"type":["array","null"]},"any":{}}}`
	for _, c := range []struct{ schema, args, want string }{
		{createEntities, `{"entities":[{"name":"a","entityType":"t","observations":null},{"name":"b","entityType":"t","observations":["x"]}]}`,
			`{"entities":[{"entityType":"t","name":"a","observations":[]},{"entityType":"t","name":"b","observations":["x"]}]}`},
		{createEntities, `{"entities":null}`, `{"entities":[]}`},
		// Nothing to change: the same bytes back.
		{createEntities, `{"entities":[{"name":"null","entityType":"t","observations":[]}]}`, `{"entities":[{"name":"null","entityType":"t","observations":[]}]}`},
		// $ref, objects, and types that allow null or anything: left.
		{withRefs, `{"tags":[{"labels":null}],"meta":null,"note":null,"either":null,"any":null}`,
			`{"any":null,"either":null,"meta":{},"note":null,"tags":[{"labels":[]}]}`},
		// Big numbers and HTML characters survive.
		{createEntities, `{"entities":[{"name":"<a&b>","entityType":"12345678901234567890","observations":null}]}`,
			`{"entities":[{"entityType":"12345678901234567890","name":"<a&b>","observations":[]}]}`},
		// Unparsable input is passed as it is.
		{createEntities, `{"entities":null`, `{"entities":null`},
		{`not json`, `{"entities":null}`, `{"entities":null}`},
	} {
		got := string(emptyNulls(json.RawMessage(c.schema), json.RawMessage(c.args)))
		if got != c.want {
			t.Errorf("emptyNulls(%s)\n got %s\nwant %s", c.args, got, c.want)
		}
	}
	// A $ref cycle ends.
	cyclic := `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`
	if got := string(emptyNulls(json.RawMessage(cyclic), json.RawMessage(`{"x":null}`))); got != `{"x":null}` {
		t.Errorf("cyclic schema: %s", got)
	}
}
