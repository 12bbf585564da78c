import { useMemo } from 'react'
import { highlight } from '../../../utils/highlight'

interface Props {
  code: string
  language: string
}

/** A generated file, highlighted (the colours are in index.css, light and dark). */
export default function CodeView({ code, language }: Props) {
  const tokens = useMemo(() => highlight(code, language), [code, language])
  return (
    <pre className="code-view" data-testid="code-view" data-language={language}>
      <code>
        {tokens.map((token, i) =>
          token.kind === 'plain' ? (
            token.text
          ) : (
            <span key={i} className={`tok-${token.kind}`}>
              {token.text}
            </span>
          ),
        )}
      </code>
    </pre>
  )
}
