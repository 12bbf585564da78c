import AlarmScreen from '../alarmData/AlarmScreen'

/**
 * /intelligentOperation/intelligentWarning: smart warnings (dispersion, full-load hours; type ≠ 1)
 * in the alarm table's shape; `?id=` opens one; each links to its analysis page (spec §2).
 */
export default function IntelligentWarningPage() {
  return <AlarmScreen kind="warn" />
}
