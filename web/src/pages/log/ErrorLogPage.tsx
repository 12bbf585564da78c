import LogPage from './LogPage'

/** /monitor/log/error: error logs. */
export default function ErrorLogPage() {
  return <LogPage kind="error" />
}
