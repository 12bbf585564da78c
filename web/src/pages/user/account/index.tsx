import UserScreen from './UserScreen'
import { userConfig } from './config'

/** /system/user: users, narrowed by the department picked on the left. */
export default function UserPage() {
  return <UserScreen makeConfig={userConfig} deptFilter />
}
