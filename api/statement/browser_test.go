package statement

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/api/receipt/browsertest"
)

// layout is what layoutProbe measures of a page as the browser laid it
// out.
type layout struct {
	InnerWidth  float64  `json:"innerWidth"`
	ScrollWidth float64  `json:"scrollWidth"`
	Overflowing []string `json:"overflowing"` // elements whose box passes the viewport's right edge
	Totals      struct {
		Text    string `json:"text"`    // its rendered text (innerText), spaces collapsed
		Shown   bool   `json:"shown"`   // laid out with a box, inside the viewport's width
		OnTop   bool   `json:"onTop"`   // scrolled to, the element at its centre is its own
		Display string `json:"display"` // its computed display
	} `json:"totals"`
	RowDisplay string `json:"rowDisplay"` // the display of a statement line or an income month row
	PDFLink    string `json:"pdfLink"`
	PDFDisplay string `json:"pdfDisplay"`
}

// layoutProbe measures the page laid out for a screen W pixels wide: the
// widths, every element passing W, the totals' box and text, how rows are
// laid out and the PDF link. (A phone lays out a page wider than itself
// zoomed out, its innerWidth grown to the page's: the screen's width is
// the measure, not innerWidth.)
const layoutProbe = `(w => {
  const name = e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' "' + (e.textContent || '').trim().slice(0, 40) + '"';
  const overflowing = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > w + 0.5).map(name);
  const t = document.getElementById('totais');
  t.scrollIntoView({block: 'center'});
  const r = t.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, Math.max(0, Math.min(window.innerHeight - 1, r.top + r.height / 2)));
  const row = document.querySelector('tr.line, table.months tbody tr');
  const pdf = document.querySelector('a.pdf');
  return {
    innerWidth: w,
    scrollWidth: document.documentElement.scrollWidth,
    overflowing,
    totals: {
      text: t.innerText.replace(/\s+/g, ' '),
      shown: r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= w,
      onTop: at !== null && t.contains(at),
      display: getComputedStyle(t).display,
    },
    rowDisplay: row ? getComputedStyle(row).display : '',
    pdfLink: pdf ? pdf.href : '',
    pdfDisplay: pdf ? getComputedStyle(pdf).display : '',
  };
})(%d)`

// measure loads url in page and measures it for a screen width pixels
// wide.
func measure(t *testing.T, page *browsertest.Page, url string, width int) layout {
	t.Helper()
	page.Navigate(url)
	if !page.WaitFor(`document.readyState === 'complete' && document.getElementById('totais') !== null && location.href === `+jsString(url), 60*time.Second) {
		t.Fatalf("%s did not load in 60 s; console:\n%s", url, strings.Join(page.Console(), "\n"))
	}
	var l layout
	if err := json.Unmarshal(page.Eval(fmt.Sprintf(layoutProbe, width)), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// overflow says how the page is wider than a screen width pixels wide,
// or "" when it fits.
func overflow(l layout, width int) string {
	w := float64(width)
	if l.InnerWidth == w && l.ScrollWidth <= w && len(l.Overflowing) == 0 {
		return ""
	}
	return fmt.Sprintf("laid out %v pixels wide (viewport %v) for a %d-pixel screen; past its right edge: %v",
		l.ScrollWidth, l.InnerWidth, width, l.Overflowing)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// stressStatement is the March statement with words no line can break
// at spaces in every text a reader sees: the page must still fit a phone.
func stressStatement() OwnerStatement {
	s := march()
	long := strings.Repeat("Apartamento", 8)
	s.Owner.Name = "Maria" + long
	s.Sections[0].Title = "Contrato" + long
	s.Sections[0].Address = "Rua" + long + ", 1000"
	s.Sections[0].Tenant = "Inquilino" + long
	s.Sections[0].Lines[0].Description = "Aluguel" + long
	s.Sections[0].Lines[6].Transfer = &Destination{PixKey: "uma.chave.pix.muito.longa.de.email@" + long + ".com.br"}
	return s
}

// TestBrowserPages loads the statement and the income report through
// Handler in headless Chromium at a phone's width (375 CSS pixels, laid
// out as a phone does) and a desktop's (1280): the page is no wider than
// the screen (nothing passes its right edge), the totals are drawn,
// uncovered, with the amounts worked by hand, lines and months are laid
// out for the width, the page logs nothing (no refusal of its policy) and
// asks for nothing off the machine; its PDF link answers the PDF; printed,
// the link is gone and the totals stay.
func TestBrowserPages(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t)
	stressRef := Ref{Kind: KindOwnerStatement, CompanyID: 1, ID: 11}
	longRef := Ref{Kind: KindOwnerStatement, CompanyID: 1, ID: 12}
	srv, s := testHandler(t, documents(map[Ref]Document{statementRef: march(), reportRef: year2024(),
		stressRef: stressStatement(), longRef: longStatement(200)}, nil))
	exp := time.Now().Add(time.Hour)
	docs := []struct {
		name, url string
		totals    []string
		row       string // the row's display: phone, desktop
	}{
		{"statement", srv.URL + "/statements/" + s.SignStatement(1, 10, exp), marchTotals, "grid,table-row"},
		{"income report", srv.URL + "/statements/" + s.SignIncomeReport(1, 3, 2024, exp), yearTotals, "block,table-row"},
		{"statement with unbreakable words", srv.URL + "/statements/" + s.SignStatement(1, 11, exp), marchTotals, "grid,table-row"},
		{"statement of 200 lines", srv.URL + "/statements/" + s.SignStatement(1, 12, exp),
			[]string{"Total recebido R$ 2.000,00", "Saldo final em 31/03/2024 R$ 0,00"}, "grid,table-row"},
	}
	for i, vp := range []struct {
		name          string
		width, height int
		mobile        bool
	}{{"phone", 375, 812, true}, {"desktop", 1280, 900, false}} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			page := browsertest.OpenPage(t, browser)
			page.SetViewport(vp.width, vp.height, vp.mobile)
			for _, d := range docs {
				l := measure(t, page, d.url, vp.width)
				if o := overflow(l, vp.width); o != "" {
					t.Errorf("%s: %s", d.name, o)
				}
				if !l.Totals.Shown || !l.Totals.OnTop || l.Totals.Display == "none" {
					t.Errorf("%s: totals not shown (%+v)", d.name, l.Totals)
				}
				checkText(t, d.name+" totals as drawn", l.Totals.Text, d.totals...)
				if want := strings.Split(d.row, ",")[i]; l.RowDisplay != want {
					t.Errorf("%s: rows laid out as %q, want %q at this width", d.name, l.RowDisplay, want)
				}
				if l.PDFLink != d.url+"?format=pdf" || l.PDFDisplay == "none" {
					t.Errorf("%s: PDF link %q (display %s)", d.name, l.PDFLink, l.PDFDisplay)
				}
			}
			checkPDFLink(t, measure(t, page, docs[0].url, vp.width).PDFLink)
			page.EmulateMedia("print")
			printed := measure(t, page, docs[0].url, vp.width)
			page.EmulateMedia("")
			if printed.PDFDisplay != "none" || printed.Totals.Display == "none" || !strings.Contains(printed.Totals.Text, "Saldo final") {
				t.Errorf("printed: PDF link display %q, totals %+v", printed.PDFDisplay, printed.Totals)
			}
			if off := browsertest.OffMachine(page.Requests()); len(off) > 0 {
				t.Errorf("the pages asked for something off the machine: %v", off)
			}
			if console := page.Console(); len(console) > 0 {
				t.Errorf("the pages logged (a refusal of their policy, an error):\n%s", strings.Join(console, "\n"))
			}
		})
	}
}

// checkPDFLink gets the page's PDF link: it answers the statement's PDF.
func checkPDFLink(t *testing.T, link string) {
	t.Helper()
	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("the PDF link answers %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	checkText(t, "the linked PDF", strings.Join(readPDF(t, body).pageTexts(t), " "), marchTotals...)
}

// TestBrowserOverflowSeen: the overflow check of TestBrowserPages fails
// for a page that is wider than a phone (the statement page with a line
// of 300 digits that cannot wrap, served under the same headers).
func TestBrowserOverflowSeen(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		Respond(rec, r, march())
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		page := strings.Replace(rec.Body.String(), "<main>", "<main><pre>"+strings.Repeat("0", 300)+"</pre>", 1)
		io.WriteString(w, page) //nolint:errcheck // test server
	}))
	t.Cleanup(srv.Close)
	page := browsertest.OpenPage(t, browser)
	page.SetViewport(375, 812, true)
	l := measure(t, page, srv.URL+"/", 375)
	if overflow(l, 375) == "" {
		t.Errorf("a 300-digit line: %+v: the check sees no overflow", l)
	}
	if len(l.Overflowing) > 0 && !strings.HasPrefix(l.Overflowing[0], "pre") {
		t.Errorf("first past the edge: %q, want the pre", l.Overflowing[0])
	}
}
