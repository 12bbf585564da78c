import { Typography } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { getHealth, type Health } from '../../../api/system/health'

type State = { kind: 'checking' } | { kind: 'up'; health: Health } | { kind: 'down' }

/** One line telling whether the hub (and its database) answers `GET /api/health`. */
export default function ServerStatus() {
  const { t } = useTranslation()
  // Said as it is now: no retries, and the line itself shows a failure.
  const health = useQuery({
    queryKey: ['health'],
    queryFn: getHealth,
    retry: false,
    meta: { ownErrorState: true },
  })
  const state: State = health.isSuccess
    ? { kind: 'up', health: health.data }
    : health.isError
      ? { kind: 'down' }
      : { kind: 'checking' }

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
