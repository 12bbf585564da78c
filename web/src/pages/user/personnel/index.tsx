import UserScreen from '../account/UserScreen'
import { personnelConfig } from './config'

/** /integrated/personnel: maintenance staff with their roles. */
export default function PersonnelPage() {
  return <UserScreen makeConfig={personnelConfig} />
}
