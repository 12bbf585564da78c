import LogPage from './LogPage'

/** /monitor/log/api: api logs. */
export default function ApiLogPage() {
  return <LogPage kind="api" />
}
