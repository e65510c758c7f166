package viewer

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// Keys are the keys of the viewer. The console rebinds them by the names
// of the fields in snake case ("viewer.copy_all").
type Keys struct {
	Up       key.Binding
	Down     key.Binding
	Top      key.Binding
	Bottom   key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Fold     key.Binding
	FoldAll  key.Binding
	Text     key.Binding
	Search   key.Binding
	Next     key.Binding
	Prev     key.Binding
	Copy     key.Binding
	CopyAll  key.Binding
	Open     key.Binding
	Table    key.Binding
	SortNext key.Binding
	SortPrev key.Binding
	Reverse  key.Binding
	JQ       key.Binding
	// ColumnsLeft and ColumnsRight scroll a table too wide for the screen
	// by a column.
	ColumnsLeft  key.Binding
	ColumnsRight key.Binding
}

func bind(keys []string, helpKey, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
}

// DefaultKeys are the viewer's keys before the config rebinds any.
func DefaultKeys() Keys {
	return Keys{
		Up:           bind([]string{"up", "k"}, "↑/k", "up"),
		Down:         bind([]string{"down", "j"}, "↓/j", "down"),
		Top:          bind([]string{"g", "home"}, "g/home", "top"),
		Bottom:       bind([]string{"G", "end"}, "G/end", "bottom"),
		PageUp:       bind([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown:     bind([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"), // space folds here
		Fold:         bind([]string{"enter", "space"}, "space/enter", "fold or unfold"),
		FoldAll:      bind([]string{"z"}, "z", "fold all / unfold all"),
		Text:         bind([]string{"t"}, "t", "strings as text / as JSON"),
		Search:       bind([]string{"/"}, "/", "search"),
		Next:         bind([]string{"n"}, "n", "next match"),
		Prev:         bind([]string{"N"}, "N", "previous match"),
		Copy:         bind([]string{"y"}, "y", "copy the value"),
		CopyAll:      bind([]string{"Y"}, "Y", "copy the whole output"),
		Open:         bind([]string{"o"}, "o", "open in $PAGER or $EDITOR"),
		Table:        bind([]string{"T"}, "T", "rows as a table / tree"),
		SortNext:     bind([]string{">"}, ">", "sort by the next column"),
		SortPrev:     bind([]string{"<"}, "<", "sort by previous column"),
		Reverse:      bind([]string{"-"}, "-", "reverse the sort"),
		JQ:           bind([]string{"|"}, "|", "jq filter, live"),
		ColumnsLeft:  bind([]string{"[", "shift+left"}, "[", "table: scroll a column left"),
		ColumnsRight: bind([]string{"]", "shift+right"}, "]", "table: scroll a column right"),
	}
}

// Columns are the keys for the full help: moving, then the viewer's own.
func (k Keys) Columns() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Fold, k.FoldAll, k.Text, k.Search, k.Next, k.Prev, k.Copy, k.CopyAll, k.Open,
			k.Table, k.SortNext, k.SortPrev, k.Reverse, k.ColumnsLeft, k.ColumnsRight, k.JQ},
	}
}

// keyName is the first key of b as its help shows it, for a sentence.
func keyName(b key.Binding) string {
	k := b.Help().Key
	if first, _, _ := strings.Cut(k, "/"); first != "" {
		return first
	}
	return k // "/" itself
}
