import AlarmScreen from '../alarms/AlarmScreen'

/**
 * /intelligentOperation/intelligentWarning: smart warnings (dispersion, full-load hours; type ≠ 1)
 * in the alarm table's shape; `?id=` opens one; each links to its analysis page; the bell opens one by id.
 */
export default function IntelligentWarningPage() {
  return <AlarmScreen kind="warn" />
}
