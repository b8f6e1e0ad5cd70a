package discovery

import "strings"

// Redact returns s with the config's secret values replaced by
// "[redacted]": every server's env values and headers, and the userinfo
// and query values of its URL (values shorter than 6 bytes, and paths of
// existing files, are not secrets). The audit log uses it before keeping
// arguments or results.
func (c *Config) Redact(s string) string {
	if c == nil {
		return s
	}
	for _, sc := range c.Servers {
		s = newRedactor(sc).String(s)
		if sc.OAuth != nil && len(sc.OAuth.ClientSecret) >= minSecretLen {
			s = strings.ReplaceAll(s, sc.OAuth.ClientSecret, redacted)
		}
	}
	return s
}
