import AlarmScreen from './AlarmScreen'

/** /intelligentOperation/alarmData: station faults (type 1); `?id=` opens one (spec §2). */
export default function AlarmDataPage() {
  return <AlarmScreen kind="alarm" />
}
