import { describe, expect, it } from 'vitest';
import { escapeHtml, html, safeUrl } from './html.js';

describe('html templates', () => {
  it('escapes every interpolated value, in content and attributes, unless it is a fragment made by html', () => {
    const evil = `<script>"a" & 'b' \`c\`</script>`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39; &#96;c&#96;&lt;/script&gt;">&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39; &#96;c&#96;&lt;/script&gt;</p>',
    );
    expect(html`<ul>${['<a>', html`<li>${'<b>'}</li>`]}</ul>`.value).toBe('<ul>&lt;a&gt;<li>&lt;b&gt;</li></ul>');
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
    expect(escapeHtml('plain')).toBe('plain');
  });

  it('lets only relative and http(s) URLs into links', () => {
    expect(safeUrl('/dashboard/faxes/1')).toBe('/dashboard/faxes/1');
    expect(safeUrl('https://example.com/x')).toBe('https://example.com/x');
    expect(safeUrl('javascript:alert(1)')).toBe('#');
    expect(safeUrl('//evil.example')).toBe('#');
  });
});
