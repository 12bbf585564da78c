/** /integrated/personnel: maintenance staff (users holding role alias `maintenance`). */
import { personnelApi, type User } from '../../../api/user/admin'
import type { CrudConfig } from '../../../components/crud/types'
import { userToolbar } from '../account/actions'
import { userFields } from '../account/fields'

/** The user form; the list shows account, name, phone and role names, and has no status. */
const fields = userFields.filter((field) => field.name !== 'status' && field.name !== 'deptName')

export function personnelConfig(
  openRoles: (users: User[], reload: () => void) => void,
): CrudConfig<User> {
  return {
    menuCode: 'personnel',
    api: personnelApi,
    fields,
    toolbar: userToolbar('personnel', openRoles).filter(
      (action) => !action.key.startsWith('audit'),
    ),
  }
}
