package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// Asker carries the requests for input that MCP servers make during calls
// (elicitation) to the console, which shows each as a form generated from
// its schema. Make one with NewAsker, give it to Options.Asker, and call Ask
// from any goroutine.
type Asker struct {
	reqs      chan *askRequest
	done      chan struct{}
	closeOnce sync.Once
}

// NewAsker returns an Asker for one console.
func NewAsker() *Asker { return &Asker{reqs: make(chan *askRequest), done: make(chan struct{})} }

// Close ends the console's wait for requests; Ask declines from then on.
func (a *Asker) Close() { a.closeOnce.Do(func() { close(a.done) }) }

type askRequest struct {
	server, message string
	schema          json.RawMessage
	sampling        bool            // a request for a model's reply, not for input
	reply           chan askReply   // buffered: the console never waits on it
	gone            <-chan struct{} // closed when the asker stops waiting (its ctx ended)
}

type askReply struct {
	content map[string]any
	accept  bool
}

// Ask shows the request of server in the console and waits for the
// person's answer: the content of the form and true when they send it,
// false when they decline (esc). It returns ctx's error when ctx ends first
// (the call was canceled, the console quit); the console then takes the
// request away.
func (a *Asker) Ask(ctx context.Context, server, message string, schema json.RawMessage) (map[string]any, bool, error) {
	return a.ask(ctx, &askRequest{server: server, message: message, schema: schema})
}

// Sampling is a server's request for a language model's reply to a
// conversation (MCP sampling), as the console shows it.
type Sampling struct {
	Server       string
	SystemPrompt string
	// Messages are the conversation, oldest first: Role is "user" or
	// "assistant".
	Messages  []SamplingMessage
	MaxTokens int64
}

// SamplingMessage is one message of a sampling request's conversation.
type SamplingMessage struct{ Role, Text string }

// samplingSchema is the form of a reply to a sampling request.
var samplingSchema = json.RawMessage(`{"type":"object","properties":{
"reply":{"type":"string","description":"what the model answers: write or paste it","contentMediaType":"text/plain"},
"model":{"type":"string","description":"the model named in the reply","default":"a person at toolexplorer"}},
"required":["reply"]}`)

// Sample shows the request in the console, where the person writes or
// pastes the reply, and waits for it: the reply, the model it names and
// true when they send it, false when they decline (esc). It returns ctx's
// error when ctx ends first.
func (a *Asker) Sample(ctx context.Context, s Sampling) (reply, model string, accept bool, err error) {
	var b strings.Builder
	if s.SystemPrompt != "" {
		b.WriteString("system: " + s.SystemPrompt + "\n")
	}
	for _, m := range s.Messages {
		b.WriteString(m.Role + ": " + m.Text + "\n")
	}
	if s.MaxTokens > 0 {
		fmt.Fprintf(&b, "(at most %d tokens)", s.MaxTokens)
	}
	content, ok, err := a.ask(ctx, &askRequest{server: s.Server, message: strings.TrimSuffix(b.String(), "\n"), schema: samplingSchema, sampling: true})
	if err != nil || !ok {
		return "", "", false, err
	}
	reply, _ = content["reply"].(string)
	model, _ = content["model"].(string)
	if model == "" {
		model = "a person at toolexplorer"
	}
	return reply, model, true, nil
}

func (a *Asker) ask(ctx context.Context, r *askRequest) (map[string]any, bool, error) {
	r.reply, r.gone = make(chan askReply, 1), ctx.Done()
	select {
	case a.reqs <- r:
	case <-a.done:
		return nil, false, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	select {
	case rep := <-r.reply:
		return rep.content, rep.accept, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// askMsg brings a request for input to the console.
type askMsg struct{ req *askRequest }

// askGoneMsg says that no one waits for the answer to req any more.
type askGoneMsg struct{ req *askRequest }

// watchGoneCmd waits for the asker of req to stop waiting.
func watchGoneCmd(c *common, req *askRequest) tea.Cmd {
	if req.gone == nil {
		return nil
	}
	done := c.ctx.Done()
	return func() tea.Msg {
		select {
		case <-req.gone:
			return askGoneMsg{req}
		case <-done:
		}
		return nil
	}
}

// watchAskCmd waits for the next request for input.
func watchAskCmd(c *common) tea.Cmd {
	if c.asker == nil {
		return nil
	}
	a, done := c.asker, c.ctx.Done()
	return func() tea.Msg {
		select {
		case r := <-a.reqs:
			return askMsg{r}
		case <-a.done:
		case <-done:
		}
		return nil
	}
}

// askScreen shows one request for input: the server, its message and a
// form of what it asks; ctrl+s sends the form, esc declines.
type askScreen struct {
	c      *common
	keys   askKeys
	req    *askRequest
	editor argsEditor
	err    string
	w, h   int
}

func newAskScreen(c *common) *askScreen { return &askScreen{c: c, keys: newAskKeys()} }

func (s *askScreen) Title() string {
	if s.req != nil && s.req.sampling {
		return "Sampling requested"
	}
	return "Input requested"
}

func (s *askScreen) Typing() bool { return s.editor != nil && s.editor.InputFocused() }

func (s *askScreen) KeyMap() help.KeyMap { return s.keys }

func (s *askScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	if s.editor != nil {
		s.editor.SetSize(w, s.editorHeight())
	}
}

func (s *askScreen) editorHeight() int { return max(s.h-4-len(s.messageLines()), 3) }

func (s *askScreen) Show() tea.Cmd { return nil }

func (s *askScreen) Hide() {}

// open shows req; the form is its schema's, or raw JSON when the schema
// is not one the form can build.
func (s *askScreen) open(req *askRequest) tea.Cmd {
	s.req, s.err = req, ""
	ed, err := s.c.newEditor("", req.schema, s.w, s.editorHeight())
	if err != nil {
		ed, err = newFormEditor(s.c.styles, json.RawMessage(`{"type":"object"}`), s.w, s.editorHeight(), nil)
		s.err = "the form cannot show what the server asks for: answer in raw JSON"
		if err == nil {
			_ = ed.ToggleRaw()
		}
	}
	s.editor = ed
	if ed == nil {
		return nil
	}
	return ed.Init()
}

// answer replies to the request, once, and goes back; the next request is
// watched for.
func (s *askScreen) answer(content map[string]any, accept bool) tea.Cmd {
	if s.req != nil {
		s.req.reply <- askReply{content: content, accept: accept}
		s.req, s.editor = nil, nil
	}
	return tea.Batch(backCmd, watchAskCmd(s.c))
}

func (s *askScreen) Update(msg tea.Msg) tea.Cmd {
	if s.req == nil || s.editor == nil {
		if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "esc" {
			return backCmd
		}
		return nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && !s.editor.Capturing() {
		switch {
		case key.Matches(k, s.keys.Decline):
			return s.answer(nil, false)
		case key.Matches(k, s.keys.Send):
			return s.send()
		}
	}
	cmd := s.editor.Update(msg)
	if s.editor.Submitted() {
		return tea.Batch(cmd, s.send())
	}
	return cmd
}

// send accepts the request with the form's content, unless it is not an
// object.
func (s *askScreen) send() tea.Cmd {
	v, err := s.editor.Value()
	var content map[string]any
	if err == nil {
		err = json.Unmarshal(v, &content)
	}
	if err != nil {
		s.err = "not sent: " + err.Error()
		return nil
	}
	return s.answer(content, true)
}

func (s *askScreen) messageLines() []string {
	if s.req == nil {
		return nil
	}
	// Each line of the message is wrapped on its own: the server's line
	// breaks stay (wrapText shows them escaped).
	var out []string
	for _, l := range strings.Split(s.req.message, "\n") {
		out = append(out, wrapText(strings.TrimSuffix(l, "\r"), max(s.w-2, 20))...)
	}
	return out
}

func (s *askScreen) View() string {
	st := s.c.styles
	if s.req == nil {
		return st.Subtle.Render("no request for input is waiting")
	}
	var b strings.Builder
	if s.req.sampling {
		b.WriteString(st.Title.Render("Sampling requested") + st.Subtle.Render(fmt.Sprintf(" · the MCP server %s asks for a model's reply to this conversation: write or paste it", termtext.Line(s.req.server))) + "\n")
	} else {
		b.WriteString(st.Title.Render("Input requested") + st.Subtle.Render(fmt.Sprintf(" · the MCP server %s asks", termtext.Line(s.req.server))) + "\n")
	}
	for _, l := range s.messageLines() {
		b.WriteString(l + "\n")
	}
	if s.err != "" {
		b.WriteString(st.Err.Render(s.err) + "\n")
	}
	b.WriteString("\n")
	if s.editor != nil {
		b.WriteString(s.editor.View())
	}
	return b.String()
}

// askKeys are the keys of the request for input.
type askKeys struct {
	Send, Decline key.Binding
}

func newAskKeys() askKeys {
	return askKeys{
		Send:    bind([]string{"ctrl+s"}, "ctrl+s", "send"),
		Decline: bind([]string{"esc"}, "esc", "decline"),
	}
}

func (k askKeys) ShortHelp() []key.Binding { return []key.Binding{k.Send, k.Decline} }

func (k askKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Send, k.Decline}} }

// openAsk shows a request for input on top of whatever screen is shown.
func (m *Model) openAsk(msg askMsg) tea.Cmd {
	m.ask.SetSize(m.width, m.bodyHeight())
	cmd := m.ask.open(msg.req)
	what := "input"
	if msg.req.sampling {
		what = "a model's reply"
	}
	m.setStatus("the MCP server "+msg.req.server+" asks for "+what+": ctrl+s sends, esc declines", true)
	return tea.Batch(cmd, m.push(m.ask), watchGoneCmd(m.c, msg.req))
}

// askGone takes away the request shown, when it is req: no one waits for
// its answer any more (the call ended, the sign-in it showed is over).
func (m *Model) askGone(msg askGoneMsg) tea.Cmd {
	if m.ask.req != msg.req {
		return nil
	}
	return m.ask.answer(nil, false)
}
