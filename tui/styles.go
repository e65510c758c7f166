package tui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// styles is every lipgloss style of the console, in one place. With
// noColor (NO_COLOR, or Options.NoColor) no style sets a colour: emphasis
// is bold, faint, underline and reverse only.
type styles struct {
	color bool // colours are on
	light bool // the palette for a light background

	Header      lipgloss.Style // the breadcrumb line
	HeaderApp   lipgloss.Style // "toolexplorer"
	Crumb       lipgloss.Style
	CrumbActive lipgloss.Style
	Title       lipgloss.Style // a screen's own title
	Subtle      lipgloss.Style // secondary text
	Faint       lipgloss.Style // column headings, hints
	Bold        lipgloss.Style
	Selected    lipgloss.Style // the row under the cursor
	Cursor      lipgloss.Style // the "›" marker

	Label lipgloss.Style // metadata table labels
	Value lipgloss.Style

	OK   lipgloss.Style
	Err  lipgloss.Style
	Warn lipgloss.Style

	BadgeRO      lipgloss.Style
	BadgeMain    lipgloss.Style
	BadgeExcl    lipgloss.Style
	BadgeFx      lipgloss.Style
	BadgeConsent lipgloss.Style
	BadgeUnavail lipgloss.Style
	BadgeOff     lipgloss.Style

	FacetOn  lipgloss.Style
	FacetOff lipgloss.Style

	TabActive   lipgloss.Style
	TabInactive lipgloss.Style

	JSONKey    lipgloss.Style
	JSONString lipgloss.Style
	JSONNumber lipgloss.Style
	JSONBool   lipgloss.Style
	JSONNull   lipgloss.Style
	JSONPunct  lipgloss.Style

	Dialog       lipgloss.Style
	Button       lipgloss.Style
	ButtonActive lipgloss.Style
	Panel        lipgloss.Style
	Status       lipgloss.Style
	StatusErr    lipgloss.Style

	Help help.Styles

	viewer *viewer.Styles // the output viewer's, made from these
}

// palette is the colours of the styles, used only when colours are on.
type palette struct {
	accent, accent2, green, red, yellow, orange, grey, dim, text, blue color.Color
	selBg, selFg                                                       color.Color
}

// darkPalette is for a dark background (and when the terminal does not
// say), lightPalette for a light one.
var (
	darkPalette = palette{
		accent: lipgloss.Color("#8B7CF6"), accent2: lipgloss.Color("#5FAFD7"), green: lipgloss.Color("#5FD787"),
		red: lipgloss.Color("#FF5F87"), yellow: lipgloss.Color("#FFD75F"), orange: lipgloss.Color("#FFAF5F"),
		grey: lipgloss.Color("#8A8A8A"), dim: lipgloss.Color("#5F5F5F"), text: lipgloss.Color("#D0D0D0"),
		blue: lipgloss.Color("#87AFFF"), selBg: lipgloss.Color("#3A3A5A"), selFg: lipgloss.Color("#FFFFFF"),
	}
	lightPalette = palette{
		accent: lipgloss.Color("#5B3FD0"), accent2: lipgloss.Color("#00729C"), green: lipgloss.Color("#007A3D"),
		red: lipgloss.Color("#C4003A"), yellow: lipgloss.Color("#8A6A00"), orange: lipgloss.Color("#B34700"),
		grey: lipgloss.Color("#5F5F5F"), dim: lipgloss.Color("#8A8A8A"), text: lipgloss.Color("#1C1C1C"),
		blue: lipgloss.Color("#0050B3"), selBg: lipgloss.Color("#D7D7F5"), selFg: lipgloss.Color("#000000"),
	}
)

func newStyles(noColor bool) *styles { return newStylesFor(noColor, false) }

// newStylesFor are the styles for a light background or a dark one.
func newStylesFor(noColor, light bool) *styles {
	pal := darkPalette
	if light {
		pal = lightPalette
	}
	colAccent, colAccent2, colGreen, colRed, colYellow := pal.accent, pal.accent2, pal.green, pal.red, pal.yellow
	colOrange, colGrey, colDim, colText, colBlue := pal.orange, pal.grey, pal.dim, pal.text, pal.blue
	s := &styles{color: !noColor, light: light && !noColor}
	plain := lipgloss.NewStyle()
	fg := func(c color.Color) lipgloss.Style {
		if noColor {
			return plain
		}
		return plain.Foreground(c)
	}

	s.Header = plain
	s.HeaderApp = fg(colAccent).Bold(true)
	s.Crumb = fg(colGrey)
	s.CrumbActive = fg(colText).Bold(true)
	s.Title = fg(colAccent).Bold(true)
	s.Subtle = fg(colGrey)
	s.Faint = fg(colDim)
	if noColor {
		s.Faint = plain.Faint(true)
	}
	s.Bold = plain.Bold(true)
	s.Selected = plain.Reverse(true)
	if !noColor {
		s.Selected = plain.Background(pal.selBg).Foreground(pal.selFg)
	}
	s.Cursor = fg(colAccent).Bold(true)

	s.Label = fg(colGrey)
	s.Value = fg(colText)

	s.OK = fg(colGreen).Bold(true)
	s.Err = fg(colRed).Bold(true)
	s.Warn = fg(colYellow)

	s.BadgeRO = fg(colGreen)
	s.BadgeMain = fg(colBlue)
	s.BadgeExcl = fg(colAccent2)
	s.BadgeFx = fg(colOrange)
	s.BadgeConsent = fg(colYellow)
	s.BadgeUnavail = fg(colRed)
	s.BadgeOff = fg(colRed).Bold(true)
	if noColor {
		s.BadgeOff = plain.Bold(true)
	}

	s.FacetOn = fg(colAccent).Bold(true).Underline(true)
	s.FacetOff = fg(colGrey)
	if noColor {
		s.FacetOn = plain.Reverse(true)
	}

	s.TabActive = fg(colAccent).Bold(true).Underline(true)
	s.TabInactive = fg(colGrey)
	if noColor {
		s.TabActive = plain.Reverse(true)
	}

	s.JSONKey = fg(colBlue)
	s.JSONString = fg(colGreen)
	s.JSONNumber = fg(colOrange)
	s.JSONBool = fg(colAccent)
	s.JSONNull = fg(colGrey)
	s.JSONPunct = fg(colDim)

	border := plain.Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if !noColor {
		border = border.BorderForeground(colAccent)
	}
	s.Dialog = border
	s.Panel = plain.Border(lipgloss.NormalBorder()).Padding(0, 1)
	if !noColor {
		s.Panel = s.Panel.BorderForeground(colDim)
	}
	s.Button = fg(colGrey).Padding(0, 1)
	s.ButtonActive = plain.Reverse(true).Bold(true).Padding(0, 1)
	s.Status = fg(colAccent2)
	s.StatusErr = fg(colRed)

	s.viewer = &viewer.Styles{Color: s.color, Faint: s.Faint, Label: s.Label, Panel: s.Panel, Err: s.Err,
		Selected: s.Selected, Cursor: s.Cursor, JSONKey: s.JSONKey, JSONString: s.JSONString, JSONNumber: s.JSONNumber,
		JSONBool: s.JSONBool, JSONNull: s.JSONNull, JSONPunct: s.JSONPunct}
	s.Help = help.DefaultStyles(!light)
	if noColor {
		s.Help = help.Styles{
			Ellipsis: plain, ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain,
		}
	}
	return s
}
