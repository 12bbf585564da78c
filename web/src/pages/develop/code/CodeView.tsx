import { useMemo } from 'react'
import { highlightHtml } from '../../../utils/highlight'

interface Props {
  code: string
  language: string
}

/** A generated file, highlighted (the colours are in index.css, light and dark). */
export default function CodeView({ code, language }: Props) {
  // highlight.js escapes the source; the HTML holds only its spans.
  const html = useMemo(() => highlightHtml(code, language), [code, language])
  return (
    <pre className="code-view" data-testid="code-view" data-language={language}>
      <code dangerouslySetInnerHTML={{ __html: html }} />
    </pre>
  )
}
