/** The user screens' extra buttons (role grant, reset, unlock, approval), per menu code. */
import {
  auditPass,
  auditRefuse,
  resetPassword,
  unlockUsers,
  type User,
} from '../../../api/user/admin'
import type { ToolbarAction } from '../../../components/crud/types'

/**
 * The confirm-and-run actions on the selected users. `menuCode` is `user` or `personnel`: each
 * screen's buttons hang on its own codes. Approval has no button code of its own in the seeded
 * menu: it is an edit of the users (`{menuCode}_edit`).
 */
export function userToolbar(
  menuCode: string,
  openRoles: (users: User[], reload: () => void) => void,
): ToolbarAction<User>[] {
  return [
    {
      key: 'role',
      label: 'user.role',
      permission: `${menuCode}_role`,
      needsSelection: true,
      run: (ctx) => openRoles(ctx.selected, ctx.reload),
    },
    {
      key: 'reset',
      label: 'user.reset',
      permission: `${menuCode}_reset`,
      needsSelection: true,
      run: (ctx) => ctx.confirm('user.resetConfirm', () => resetPassword(ctx.selectedIds)),
    },
    {
      key: 'unlock',
      label: 'user.unlock',
      permission: `${menuCode}_unlock`,
      needsSelection: true,
      run: (ctx) => ctx.confirm('user.unlockConfirm', () => unlockUsers(ctx.selectedIds)),
    },
    {
      key: 'audit-pass',
      label: 'user.auditPass',
      permission: `${menuCode}_edit`,
      needsSelection: true,
      run: (ctx) => ctx.confirm('user.auditPassConfirm', () => auditPass(ctx.selectedIds)),
    },
    {
      key: 'audit-refuse',
      label: 'user.auditRefuse',
      permission: `${menuCode}_edit`,
      needsSelection: true,
      danger: true,
      run: (ctx) => ctx.confirm('user.auditRefuseConfirm', () => auditRefuse(ctx.selectedIds)),
    },
  ]
}
