import LogPage from './LogPage'

/** /monitor/log/usual: usual logs. */
export default function UsualLogPage() {
  return <LogPage kind="usual" />
}
