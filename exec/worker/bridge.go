package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// bridge is the worker side of tool calls: it multiplexes concurrent calls
// from the snippet's goroutines over the control channel by id.
//
// There is no reader goroutine. A waiting call takes the reader's token
// and reads the channel itself, handing other calls their results, until
// its own result is in; then it passes the token on to another waiting
// call, if any. A lone call thus wakes up on its own result, with no
// goroutine hand-over between the read and the code that called; that
// hand-over was the larger part of a call's cost in the worker.
type bridge struct {
	conn *Conn
	// setDeadline sets the read deadline of the channel: a call whose
	// context ends while it is the reader stops reading that way.
	setDeadline func(time.Time) error
	// exit ends the worker when the channel breaks (os.Exit in Main).
	exit func(code int)
	// flow holds calls until their server has room (nil: no limits).
	flow *flow

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan *Message

	reader chan struct{} // the reader's token: capacity 1, full while a call reads

	dmu         sync.Mutex
	interrupted bool // a read deadline is set: the next reader clears it
}

func newBridge(conn *Conn, setDeadline func(time.Time) error, exit func(int)) *bridge {
	return &bridge{
		conn:        conn,
		setDeadline: setDeadline,
		exit:        exit,
		pending:     map[uint64]chan *Message{},
		reader:      make(chan struct{}, 1),
	}
}

// Call sends one tool call to the parent and waits for its result, or for
// ctx to end.
func (b *bridge) Call(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done, err := b.flow.take(ctx, server, CallCharge(server, tool, args))
	if err != nil {
		return nil, err
	}
	defer done()
	ch := make(chan *Message, 1)
	b.mu.Lock()
	b.next++
	id := b.next
	b.pending[id] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
	}()
	if err := b.conn.Write(&Message{Type: TypeCall, ID: id, Server: server, Tool: tool, Args: args}); err != nil {
		return nil, fmt.Errorf("send the call to mcpfs: %w", err)
	}
	for {
		select {
		case m := <-ch:
			return reply(m)
		case <-ctx.Done():
			return nil, ctx.Err()
		case b.reader <- struct{}{}:
			err := b.read(ctx, ch)
			<-b.reader
			if err != nil {
				return nil, err
			}
			// ch holds the result now; the loop takes it.
		}
	}
}

func reply(m *Message) (json.RawMessage, error) {
	if m.Error != "" {
		return nil, errors.New(m.Error)
	}
	return m.Result, nil
}

// read reads messages and delivers results until ch has one, as the
// holder of the reader's token. It returns ctx's error if ctx ends first.
func (b *bridge) read(ctx context.Context, ch chan *Message) error {
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() {
			b.dmu.Lock()
			defer b.dmu.Unlock()
			b.interrupted = true
			b.setDeadline(time.Unix(1, 0)) // in the past: a blocked read returns now
		})
		defer stop()
	}
	for len(ch) == 0 {
		b.dmu.Lock()
		if b.interrupted {
			// Set for an earlier reader whose context ended.
			b.setDeadline(time.Time{})
			b.interrupted = false
		}
		b.dmu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		m, err := b.conn.Read()
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			continue // the loop returns ctx's error, or clears a stale deadline
		case err != nil:
			// The parent closed the channel: the run is over.
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(os.Stderr, "mcpfs worker: control channel: %v\n", err)
			}
			b.exit(exitProtocol)
			return err
		case m.Type != TypeResult:
			continue
		}
		b.mu.Lock()
		dst := b.pending[m.ID]
		b.mu.Unlock()
		if dst != nil {
			select {
			case dst <- m:
			default: // a second result for the id: the first one stands
			}
		}
	}
	return nil
}
