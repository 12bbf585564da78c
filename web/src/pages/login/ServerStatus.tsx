import { Typography } from 'antd'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { getHealth, type Health } from '../../api/system/health'

type State = { kind: 'checking' } | { kind: 'up'; health: Health } | { kind: 'down' }

/** One line telling whether the hub (and its database) answers `GET /api/health`. */
export default function ServerStatus() {
  const { t } = useTranslation()
  const [state, setState] = useState<State>({ kind: 'checking' })

  useEffect(() => {
    let current = true
    getHealth().then(
      (health) => current && setState({ kind: 'up', health }),
      () => current && setState({ kind: 'down' }),
    )
    return () => {
      current = false
    }
  }, [])

  let text: string
  let type: 'success' | 'warning' | 'danger' | 'secondary'
  let dataState: string
  if (state.kind === 'checking') {
    ;[text, type, dataState] = [t('server.checking'), 'secondary', 'checking']
  } else if (state.kind === 'down') {
    ;[text, type, dataState] = [t('server.unreachable'), 'danger', 'down']
  } else {
    const { status, database, version } = state.health
    const ok = status.toLowerCase() === 'ok'
    text = ok
      ? t('server.ok', { database, version })
      : t('server.notOk', { status, database, version })
    type = ok ? 'success' : 'warning'
    dataState = ok ? 'ok' : 'degraded'
  }

  return (
    <Typography.Text data-testid="server-status" data-state={dataState} type={type}>
      {text}
    </Typography.Text>
  )
}
