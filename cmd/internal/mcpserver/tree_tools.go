package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpfs/mcpfs/discovery"
	"github.com/mcpfs/mcpfs/exec"
)

// maxRead bounds the text one read_file call returns.
const maxRead = 64 << 10

// ResourcePrefix starts the URI of every tree file offered as a resource:
// mcpfs://tree/servers/docstore/doc.go.
const ResourcePrefix = "mcpfs://tree/"

// serverLister is implemented by the mcpfs tree: the state of the server
// behind servers/<name>/.
type serverLister interface {
	Server(name string) (discovery.ServerSnapshot, bool)
}

// cleanPath turns a path an agent wrote into an io/fs path:
// "/servers/x/", "./servers/x" and "servers/x" are all "servers/x"; "",
// "/" and "." are ".".
func cleanPath(p string) (string, error) {
	clean := strings.TrimPrefix(path.Clean("/"+strings.TrimSpace(p)), "/")
	if clean == "" {
		clean = "."
	}
	if !iofs.ValidPath(clean) {
		return "", fmt.Errorf("invalid path %q", p)
	}
	return clean, nil
}

func (s *Server) handleListDir(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p, err := argsOf(req).str("path")
	if err != nil {
		return toolError("list_dir: %v", err), nil
	}
	clean, err := cleanPath(p)
	if err != nil {
		return toolError("list_dir: %v", err), nil
	}
	text, err := listDir(s.engine.Tree(), clean)
	if err != nil {
		return toolError("list_dir: %v", err), nil
	}
	return mcp.NewToolResultText(text), nil
}

// listDir lists one folder: sub-folders end in "/", files show their size,
// and servers/ shows each server's state.
func listDir(tree iofs.FS, p string) (string, error) {
	entries, err := iofs.ReadDir(tree, p)
	if err != nil {
		return "", notFound(tree, p, err)
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	servers, _ := tree.(serverLister)
	for _, e := range entries {
		name := e.Name()
		switch {
		case p == "servers" && servers != nil && e.IsDir():
			snap, _ := servers.Server(name)
			fmt.Fprintf(tw, "%s/\t%s\n", name, stateLine(snap))
		case e.IsDir():
			fmt.Fprintf(tw, "%s/\n", name)
		default:
			var size int64
			if info, err := e.Info(); err == nil {
				size = info.Size()
			}
			fmt.Fprintf(tw, "%s\t%d bytes\n", name, size)
		}
	}
	tw.Flush()
	if p == "servers" && servers != nil {
		b.WriteString("\nEach server is a Go package: read servers/<server>/doc.go for its tools.\n")
	}
	if len(entries) == 0 {
		fmt.Fprintf(&b, "%s is empty\n", p)
	}
	return b.String(), nil
}

// stateLine is a server's state in a few words.
func stateLine(s discovery.ServerSnapshot) string {
	switch s.State {
	case discovery.StateReady:
		n := len(s.Tools)
		if n == 1 {
			return "ready, 1 tool"
		}
		return fmt.Sprintf("ready, %d tools", n)
	case discovery.StateFailed:
		line := strings.TrimSpace(s.Err)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i] + " …"
		}
		return "failed: " + line
	case "":
		return "unknown"
	}
	return string(s.State)
}

// notFound says what was wrong with p and where to look instead.
func notFound(tree iofs.FS, p string, err error) error {
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		parent := path.Dir(p)
		if _, perr := iofs.Stat(tree, parent); perr != nil {
			parent = "."
		}
		return fmt.Errorf("%s: no such file or folder (list_dir %q shows what exists)", p, parent)
	case errors.Is(err, iofs.ErrInvalid):
		return fmt.Errorf("%s: invalid path", p)
	}
	if info, serr := iofs.Stat(tree, p); serr == nil {
		if info.IsDir() {
			return fmt.Errorf("%s is a folder: use list_dir", p)
		}
		return fmt.Errorf("%s is a file: use read_file", p)
	}
	return fmt.Errorf("%s: %w", p, err)
}

func (s *Server) handleReadFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := argsOf(req)
	p, err := a.str("path")
	if err != nil {
		return toolError("read_file: %v", err), nil
	}
	offset, err := a.integer("offset", 0)
	if err != nil {
		return toolError("read_file: %v", err), nil
	}
	limit, err := a.integer("limit", 0)
	if err != nil {
		return toolError("read_file: %v", err), nil
	}
	if offset < 0 || limit < 0 {
		return toolError("read_file: offset and limit must not be negative"), nil
	}
	if strings.TrimSpace(p) == "" {
		return toolError(`read_file: "path" is empty: give a file of the tree, e.g. README.md or servers/<server>/doc.go`), nil
	}
	r, shown, err := s.openFile(p)
	if err != nil {
		return toolError("read_file: %v", err), nil
	}
	defer r.Close()
	text, err := lines(r, shown, offset, limit)
	if err != nil {
		return toolError("read_file: %s: %v", shown, err), nil
	}
	return mcp.NewToolResultText(text), nil
}

// openFile opens a tree file, or a saved output (an absolute path in
// OutputDir). shown is the path to repeat in a "continues" note.
func (s *Server) openFile(p string) (r io.ReadCloser, shown string, err error) {
	if filepath.IsAbs(p) && s.opts.OutputDir != "" {
		if err := exec.CheckOutputDir(s.opts.OutputDir); err != nil {
			return nil, "", fmt.Errorf("%s: saved output cannot be read here: %w", p, exec.ErrOutputDir)
		}
		dir, err := filepath.Abs(s.opts.OutputDir)
		if err != nil {
			return nil, "", err
		}
		if filepath.Dir(filepath.Clean(p)) == dir {
			f, err := s.openOutput(dir, filepath.Clean(p))
			return f, p, err
		}
	}
	clean, err := cleanPath(p)
	if err != nil {
		return nil, "", err
	}
	tree := s.engine.Tree()
	data, err := iofs.ReadFile(tree, clean)
	if err != nil {
		return nil, "", notFound(tree, clean, err)
	}
	return io.NopCloser(bytes.NewReader(data)), clean, nil
}

// openOutput opens a file that a run saved: a regular file in dir whose
// name starts with "run-". Nothing else outside the tree is readable.
func (s *Server) openOutput(dir, p string) (*os.File, error) {
	if !strings.HasPrefix(filepath.Base(p), "run-") {
		return nil, fmt.Errorf("%s is not a saved output (those are %s/run-*)", p, dir)
	}
	info, err := os.Lstat(p)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("saved output %s does not exist (any more)", p)
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a saved output", p)
	}
	return os.Open(p)
}

// lines returns limit lines of r from line offset on (all when limit is
// 0), at most maxRead bytes, with a note saying how to read on when more
// remains.
func lines(r io.Reader, p string, offset, limit int) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for i := 0; i < offset; i++ {
		if err := skipLine(br); err == io.EOF {
			return fmt.Sprintf("[%s: offset %d is past the end: the file has %d lines]\n", p, offset, i), nil
		} else if err != nil {
			return "", err
		}
	}
	var out bytes.Buffer
	n := 0
	more := false
	for limit == 0 || n < limit {
		line, err := br.ReadSlice('\n')
		if out.Len()+len(line) > maxRead {
			if out.Len() == 0 {
				out.Write(line[:maxRead])
			}
			more = true
			break
		}
		out.Write(line)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		n++
	}
	if !more && limit > 0 && n == limit {
		_, err := br.Peek(1)
		more = err == nil
	}
	if more {
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			out.WriteString("\n")
		}
		fmt.Fprintf(&out, "[%s continues: read_file path=%q offset=%d]\n", p, p, offset+n)
	}
	return out.String(), nil
}

func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

// addResources offers the tree as resources: README.md by name, every
// other file through the template mcpfs://tree/{+path}.
func (s *Server) addResources() {
	s.mcp.AddResource(mcp.NewResource(ResourcePrefix+"README.md", "README.md",
		mcp.WithResourceDescription("How to discover tools, write a snippet and save a skill."),
		mcp.WithMIMEType("text/markdown")), s.readResource)
	s.mcp.AddResourceTemplate(mcp.NewResourceTemplate(ResourcePrefix+"{+path}", "tree",
		mcp.WithTemplateDescription("A file of the tree, e.g. servers/<server>/doc.go."),
	), s.readResource)
}

var _ server.ResourceHandlerFunc = (*Server)(nil).readResource

func (s *Server) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	rel, ok := strings.CutPrefix(uri, ResourcePrefix)
	if !ok {
		return nil, fmt.Errorf("resource %q: not an mcpfs tree resource (%s<path>)", uri, ResourcePrefix)
	}
	clean, err := cleanPath(rel)
	if err != nil {
		return nil, fmt.Errorf("resource %q: %w", uri, err)
	}
	tree := s.engine.Tree()
	data, err := iofs.ReadFile(tree, clean)
	if err != nil {
		return nil, fmt.Errorf("resource %q: %w", uri, notFound(tree, clean, err))
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mimeType(clean), Text: string(data)}}, nil
}

func mimeType(p string) string {
	switch path.Ext(p) {
	case ".go":
		return "text/x-go"
	case ".md":
		return "text/markdown"
	}
	return "text/plain"
}

// maxCompletions bounds the values of one completion/complete answer.
const maxCompletions = 100

// pathCompleter completes the path argument of the tree resource
// template: "servers/do" → "servers/docstore/".
type pathCompleter struct{ s *Server }

var _ server.ResourceCompletionProvider = pathCompleter{}

// CompleteResourceArgument lists the entries of the folder the value is
// in that start with the value's last element; folders end in "/".
func (c pathCompleter) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	out := &mcp.Completion{Values: []string{}}
	if arg.Name != "path" {
		return out, nil
	}
	dir, prefix := path.Split(strings.TrimPrefix(arg.Value, "/"))
	cleanDir, err := cleanPath(dir)
	if err != nil {
		return out, nil
	}
	entries, err := iofs.ReadDir(c.s.engine.Tree(), cleanDir)
	if err != nil {
		return out, nil
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		v := dir + e.Name()
		if e.IsDir() {
			v += "/"
		}
		out.Values = append(out.Values, v)
	}
	out.Total = len(out.Values)
	if len(out.Values) > maxCompletions {
		out.Values = out.Values[:maxCompletions]
		out.HasMore = true
	}
	return out, nil
}
