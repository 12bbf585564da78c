import AlarmScreen from './AlarmScreen'

/** /intelligentOperation/alarmData: station faults (type 1); `?id=` opens one (a click on the bell list). */
export default function AlarmDataPage() {
  return <AlarmScreen kind="alarm" />
}
