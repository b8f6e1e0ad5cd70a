package discovery

import "github.com/mcpfs/mcpfs/discovery/jsonvalue"

// Config files are read with jsonvalue, which keeps what the loader needs
// most and encoding/json drops: where each value is (for file:line:col in
// errors), the order of keys, and duplicate keys. The loader's names for
// its types follow.

type (
	jsonKind        = jsonvalue.Kind
	jsonValue       = jsonvalue.Value
	jsonMember      = jsonvalue.Member
	jsonSyntaxError = jsonvalue.SyntaxError
)

const (
	jsonNull   = jsonvalue.Null
	jsonBool   = jsonvalue.Bool
	jsonNumber = jsonvalue.Number
	jsonString = jsonvalue.String
	jsonArray  = jsonvalue.Array
	jsonObject = jsonvalue.Object
)

var (
	parseJSON     = jsonvalue.Parse
	lineCol       = jsonvalue.LineCol
	jsonPathKey   = jsonvalue.PathKey
	jsonPathIndex = jsonvalue.PathIndex
)
