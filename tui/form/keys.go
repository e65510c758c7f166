package form

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
)

// KeyMap are the form's keys. [Model.KeyMap] returns them with the ones that
// do nothing on the focused field disabled, ready for bubbles help
// (ShortHelp and FullHelp).
type KeyMap struct {
	Next     key.Binding // the next field
	Prev     key.Binding // the previous field
	Down     key.Binding
	Up       key.Binding
	PageDown key.Binding
	PageUp   key.Binding
	Toggle   key.Binding // flip a boolean, open a picker, expand or collapse an object
	Choose   key.Binding // step through the choices of an enum or a union
	Close    key.Binding // close an open picker; in raw mode, back to the form
	Null     key.Binding // set or unset an explicit null on a nullable field
	Add      key.Binding // add an array item or a map entry
	Remove   key.Binding // remove the focused item or entry
	MoveUp   key.Binding // move the focused item up
	MoveDown key.Binding // move the focused item down
	Undo     key.Binding // put back the item or entry removed last
	Text     key.Binding // edit a string as lines of text; in the text editor, close it
	Editor   key.Binding // edit a string in $EDITOR
	Empty    key.Binding // an explicit empty string, or back to none
	Raw      key.Binding // switch between the form and raw JSON
	Discard  key.Binding // leave raw JSON the form cannot hold, dropping its edits (when asked)
	Submit   key.Binding // submit; enter on the last field does too
}

// DefaultKeyMap returns the form's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Next:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		Prev:     key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Down:     key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next field")),
		Up:       key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous field")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		Toggle:   key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space/enter", "toggle/open")),
		Choose:   key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "change choice")),
		Close:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close picker")),
		Null:     key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "null/value")),
		Add:      key.NewBinding(key.WithKeys("ctrl+n", "a"), key.WithHelp("ctrl+n/a", "add item")),
		Remove:   key.NewBinding(key.WithKeys("ctrl+d", "x"), key.WithHelp("ctrl+d/x", "remove item")),
		MoveUp:   key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑", "move item up")),
		MoveDown: key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "move item down")),
		Undo:     key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo remove")),
		Text:     key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("ctrl+e", "edit as lines of text")),
		Editor:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "edit in $EDITOR")),
		Empty:    key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", `empty string ""/none`)),
		Raw:      key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "raw JSON")),
		Discard:  key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "discard the edits")),
		Submit:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "submit")),
	}
}

// ShortHelp is the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Discard, k.Close, k.Next, k.Toggle, k.Null, k.Add, k.Remove, k.Undo, k.Raw, k.Submit}
}

// FullHelp is the help by column: moving, editing, arrays and maps, the form.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Prev, k.Down, k.Up, k.PageDown, k.PageUp},
		{k.Toggle, k.Choose, k.Close, k.Null, k.Text, k.Editor, k.Empty},
		{k.Add, k.Remove, k.Undo, k.MoveUp, k.MoveDown},
		{k.Raw, k.Discard, k.Submit},
	}
}

// inputKeys are the text input's own keys, less those the form uses:
// ctrl+d (remove), ctrl+n/ctrl+p, up/down and tab (moving between fields).
func inputKeys() textinput.KeyMap {
	k := textinput.DefaultKeyMap()
	k.DeleteCharacterForward = key.NewBinding(key.WithKeys("delete"))
	k.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	k.NextSuggestion = key.NewBinding(key.WithDisabled())
	k.PrevSuggestion = key.NewBinding(key.WithDisabled())
	return k
}
