package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpfs/mcpfs/exec/check"
)

// RunFunc describes a skill's entry point: a top-level func Run of the
// form `func Run(args A) (R, error)`, `func Run() (R, error)`, or either
// of these returning only error, where A is a struct type of the skill.
// mcpfs serve offers such a skill as a tool.
type RunFunc struct {
	// Signature is Run's signature as written: "func Run(args Args) (Report, error)".
	Signature string
	// Doc is Run's doc comment.
	Doc string
	// ArgsType is the name of A, "" when Run takes no arguments.
	ArgsType string
	// HasResult reports whether Run returns a value besides the error.
	HasResult bool
	// InputSchema is the JSON Schema of the arguments: an object with a
	// property per exported field of A (named by its json tag), as an MCP
	// tool's inputSchema.
	InputSchema json.RawMessage
}

const runHint = "Run is the skill's entry point, offered as a tool: declare func Run(args <struct type>) (<result>, error), func Run() (<result>, error), or the same returning only error; or rename the function"

// findRun looks for func Run in the skill's Go files.
func findRun(fset *token.FileSet, files []*ast.File) (*RunFunc, []check.Error) {
	types := map[string]*ast.TypeSpec{}
	docs := map[string]string{}
	var run *ast.FuncDecl
	var runFile *ast.File
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						types[ts.Name.Name] = ts
						if d.Doc != nil && len(d.Specs) == 1 {
							docs[ts.Name.Name] = d.Doc.Text()
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "Run" {
					run, runFile = d, f
				}
			}
		}
	}
	if run == nil {
		return nil, nil
	}
	bad := func(msg string) (*RunFunc, []check.Error) {
		return nil, []check.Error{{Pos: fset.Position(run.Name.Pos()), Msg: msg, Hint: runHint}}
	}
	ft := run.Type
	if ft.TypeParams != nil && len(ft.TypeParams.List) > 0 {
		return bad("func Run cannot have type parameters")
	}
	rf := &RunFunc{Doc: strings.TrimSpace(run.Doc.Text())}
	params := fieldCount(ft.Params)
	switch params {
	case 0:
		rf.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	case 1:
		id, ok := ft.Params.List[0].Type.(*ast.Ident)
		if !ok || types[id.Name] == nil {
			return bad("func Run takes " + exprString(ft.Params.List[0].Type) + "; its argument must be a struct type declared in the skill")
		}
		st, ok := types[id.Name].Type.(*ast.StructType)
		if !ok {
			return bad("func Run takes " + id.Name + ", which is not a struct type")
		}
		rf.ArgsType = id.Name
		schema := structSchema(st, types, map[string]bool{id.Name: true})
		if d := strings.TrimSpace(docs[id.Name]); d != "" {
			schema["description"] = d
		}
		rf.InputSchema, _ = json.Marshal(schema)
	default:
		return bad(fmt.Sprintf("func Run takes %d arguments; it takes one struct or none", params))
	}
	results := ft.Results
	n := fieldCount(results)
	last := func() string { return exprString(results.List[len(results.List)-1].Type) }
	switch {
	case n == 1 && last() == "error":
	case n == 2 && last() == "error":
		rf.HasResult = true
	default:
		return bad("func Run must return (result, error) or error")
	}
	var sig bytes.Buffer
	sig.WriteString("func Run(")
	if params == 1 {
		p := ft.Params.List[0]
		if len(p.Names) == 1 {
			sig.WriteString(p.Names[0].Name + " ")
		}
		sig.WriteString(rf.ArgsType)
	}
	sig.WriteString(") ")
	if rf.HasResult {
		var parts []string
		for _, r := range results.List {
			for range max(1, len(r.Names)) {
				parts = append(parts, exprString(r.Type))
			}
		}
		sig.WriteString("(" + strings.Join(parts, ", ") + ")")
	} else {
		sig.WriteString("error")
	}
	rf.Signature = sig.String()
	_ = runFile
	return rf, nil
}

func fieldCount(fl *ast.FieldList) int {
	if fl == nil {
		return 0
	}
	n := 0
	for _, f := range fl.List {
		n += max(1, len(f.Names))
	}
	return n
}

// exprString prints a type expression.
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.ArrayType:
		if e.Len == nil {
			return "[]" + exprString(e.Elt)
		}
		return "[...]" + exprString(e.Elt)
	case *ast.MapType:
		return "map[" + exprString(e.Key) + "]" + exprString(e.Value)
	case *ast.InterfaceType:
		return "interface{}"
	case *ast.StructType:
		return "struct{...}"
	}
	return fmt.Sprintf("%T", e)
}

// structSchema is the JSON Schema of a struct type written in the skill.
func structSchema(st *ast.StructType, types map[string]*ast.TypeSpec, seen map[string]bool) map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			continue // embedded: not flattened by the interpreter's encoding/json
		}
		tag := ""
		if f.Tag != nil {
			if s, err := strconv.Unquote(f.Tag.Value); err == nil {
				tag = reflect.StructTag(s).Get("json")
			}
		}
		jname, opts, _ := strings.Cut(tag, ",")
		if jname == "-" {
			continue
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			key := jname
			if key == "" {
				key = n.Name
			}
			s := typeSchema(f.Type, types, seen)
			if doc := strings.TrimSpace(f.Doc.Text() + " " + f.Comment.Text()); doc != "" {
				s["description"] = doc
			}
			props[key] = s
			_, ptr := f.Type.(*ast.StarExpr)
			if !ptr && !strings.Contains(opts, "omitempty") {
				required = append(required, key)
			}
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

func typeSchema(e ast.Expr, types map[string]*ast.TypeSpec, seen map[string]bool) map[string]any {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeSchema(e.X, types, seen)
	case *ast.ArrayType:
		if id, ok := e.Elt.(*ast.Ident); ok && id.Name == "byte" {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": typeSchema(e.Elt, types, seen)}
	case *ast.MapType:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(e.Value, types, seen)}
	case *ast.StructType:
		return structSchema(e, types, seen)
	case *ast.SelectorExpr:
		if exprString(e) == "time.Time" {
			return map[string]any{"type": "string", "format": "date-time"}
		}
		if exprString(e) == "time.Duration" {
			return map[string]any{"type": "integer", "description": "nanoseconds"}
		}
		return map[string]any{}
	case *ast.Ident:
		switch e.Name {
		case "string":
			return map[string]any{"type": "string"}
		case "bool":
			return map[string]any{"type": "boolean"}
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "byte", "rune":
			return map[string]any{"type": "integer"}
		case "float32", "float64":
			return map[string]any{"type": "number"}
		case "any":
			return map[string]any{}
		}
		if ts, ok := types[e.Name]; ok && !seen[e.Name] {
			seen[e.Name] = true
			defer delete(seen, e.Name)
			return typeSchema(ts.Type, types, seen)
		}
	}
	return map[string]any{}
}

// RunMarker starts the line a Run snippet prints last: the JSON envelope
// {"result": ...} or {"error": "..."}.
const RunMarker = "mcpfs-skill-run: "

// RunSnippet returns a snippet (a package main file, to be checked and run
// like any other) that decodes args into the skill's argument struct,
// calls Run and prints the outcome as the line RunMarker + JSON. Read it
// with DecodeRunOutput. Empty args mean {}.
func RunSnippet(sk Skill, args json.RawMessage) ([]byte, error) {
	if sk.Run == nil {
		return nil, fmt.Errorf("skill %q has no Run entry point", sk.Name)
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return nil, fmt.Errorf("run skill %q: the arguments are not valid JSON", sk.Name)
	}
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"encoding/json\"\n\t\"fmt\"\n\n")
	fmt.Fprintf(&b, "\tskill %q\n)\n\n", sk.ImportPath())
	fmt.Fprintf(&b, "const runArgs = %s\n\n", strconv.Quote(string(args)))
	b.WriteString("func report(v any, err error) {\n\tout := map[string]any{\"result\": v}\n\tif err != nil {\n\t\tout = map[string]any{\"error\": err.Error()}\n\t}\n")
	b.WriteString("\tdata, merr := json.Marshal(out)\n\tif merr != nil {\n\t\tdata, _ = json.Marshal(map[string]any{\"error\": \"encode the result: \" + merr.Error()})\n\t}\n")
	fmt.Fprintf(&b, "\tfmt.Println(%q + string(data))\n}\n\n", RunMarker)
	b.WriteString("func main() {\n")
	call := "skill.Run()"
	if sk.Run.ArgsType != "" {
		fmt.Fprintf(&b, "\tvar args skill.%s\n", sk.Run.ArgsType)
		b.WriteString("\tif err := json.Unmarshal([]byte(runArgs), &args); err != nil {\n\t\treport(nil, fmt.Errorf(\"decode the arguments: %v\", err))\n\t\treturn\n\t}\n")
		call = "skill.Run(args)"
	} else {
		b.WriteString("\t_ = runArgs\n")
	}
	if sk.Run.HasResult {
		fmt.Fprintf(&b, "\tv, err := %s\n\treport(v, err)\n}\n", call)
	} else {
		fmt.Fprintf(&b, "\treport(nil, %s)\n}\n", call)
	}
	return []byte(b.String()), nil
}

// RunOutput is what a Run snippet printed.
type RunOutput struct {
	// Result is Run's result as JSON (null when Run returns only error).
	Result json.RawMessage
	// Err is the error Run returned, "" when none.
	Err string
	// Log is what the skill printed itself, before the result.
	Log string
}

// DecodeRunOutput reads the stdout of a RunSnippet run.
func DecodeRunOutput(stdout []byte) (RunOutput, error) {
	i := bytes.LastIndex(stdout, []byte(RunMarker))
	if i < 0 || (i > 0 && stdout[i-1] != '\n') {
		return RunOutput{Log: string(stdout)}, errors.New("the skill's Run did not finish (no result line in its output)")
	}
	line := bytes.TrimSpace(stdout[i+len(RunMarker):])
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return RunOutput{Log: string(stdout[:i])}, fmt.Errorf("decode the result line of the skill's Run: %w", err)
	}
	return RunOutput{Result: env.Result, Err: env.Error, Log: string(stdout[:i])}, nil
}
