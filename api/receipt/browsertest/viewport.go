package browsertest

// SetViewport gives the page a viewport of width × height CSS pixels, at
// one device pixel per CSS pixel, whatever the window's size (a headless
// window is never narrower than 500 pixels). With mobile the page is laid
// out as a phone lays it out: its meta viewport is honoured, and without
// one it would be laid out 980 pixels wide and scaled down. Navigate
// after setting it, or the page reflows.
func (p *Page) SetViewport(width, height int, mobile bool) {
	p.t.Helper()
	p.call(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
	}, nil)
}

// EmulateMedia lays the page out for a CSS media type: "print" as when
// printed, "" as on screen.
func (p *Page) EmulateMedia(media string) {
	p.t.Helper()
	p.call(p.session, "Emulation.setEmulatedMedia", map[string]any{"media": media}, nil)
}

// SetHeaders sends the header fields with every request the page makes
// from now on (an Authorization header for pages behind a credential).
func (p *Page) SetHeaders(headers map[string]string) {
	p.t.Helper()
	p.call(p.session, "Network.setExtraHTTPHeaders", map[string]any{"headers": headers}, nil)
}
