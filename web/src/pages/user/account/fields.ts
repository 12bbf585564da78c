/**
 * The user form and columns (contract "Users"; username 1-16 letters, digits, _ or -; phone 11 digits from 1), shared by the
 * user and personnel screens.
 */
import type { User } from '../../../api/user/admin'
import { deptTree } from '../../../api/system/dept'
import { postOptions } from '../../../api/system/post'
import { roleTree } from '../../../api/system/role'
import type { CrudField } from '../../../components/crud/types'
import { phonePattern, usernamePattern } from '../../../utils/validate'

export const userFields: readonly CrudField<User>[] = [
  { name: 'id', label: 'user.account', hideInTable: true, hideInForm: true },
  {
    name: 'account',
    label: 'user.account',
    required: 'user.accountRequired',
    search: true,
    lockedIn: ['edit'],
    rules: (t) => [{ pattern: usernamePattern, message: t('user.accountFormat') }],
  },
  {
    name: 'password',
    label: 'user.password',
    type: 'password',
    modes: ['add'],
    hideInTable: true,
    required: 'user.passwordRequired',
  },
  {
    name: 'password2',
    label: 'user.password2',
    type: 'password',
    modes: ['add'],
    hideInTable: true,
    required: 'user.password2Required',
    dependencies: ['password'],
    trigger: 'change',
    rules: (t) => [
      ({ getFieldValue }) => ({
        validator: (_rule, value: unknown) =>
          !value || value === getFieldValue('password')
            ? Promise.resolve()
            : Promise.reject(new Error(t('user.passwordMismatch'))),
      }),
    ],
  },
  { name: 'realName', label: 'user.realName', required: 'user.realNameRequired', search: true },
  { name: 'name', label: 'user.name', hideInTable: true },
  {
    name: 'roleId',
    label: 'user.roleId',
    type: 'treeSelect',
    multiple: true,
    required: 'user.roleIdRequired',
    loadTree: () => roleTree(),
    hideInTable: true,
  },
  { name: 'roleName', label: 'user.roleId', hideInForm: true },
  {
    name: 'deptId',
    label: 'user.deptId',
    type: 'treeSelect',
    multiple: true,
    required: 'user.deptIdRequired',
    loadTree: () => deptTree(),
    hideInTable: true,
  },
  { name: 'deptName', label: 'user.deptId', hideInForm: true },
  {
    name: 'postId',
    label: 'user.postId',
    type: 'select',
    multiple: true,
    hideInTable: true,
    loadOptions: async () =>
      (await postOptions()).map((post) => ({ value: post.id ?? '', label: post.postName })),
  },
  {
    name: 'phone',
    label: 'user.phone',
    rules: (t) => [{ pattern: phonePattern, message: t('validate.phoneFormat') }],
  },
  {
    name: 'email',
    label: 'user.email',
    hideInTable: true,
    rules: (t) => [{ type: 'email', message: t('user.emailFormat') }],
  },
  { name: 'sex', label: 'user.sex', type: 'select', dict: 'sex', numeric: true, hideInTable: true },
  {
    name: 'status',
    label: 'user.status',
    type: 'select',
    search: true,
    hideInForm: true,
    options: [
      { value: 1, label: 'user.statusActive' },
      { value: 2, label: 'user.statusPending' },
    ],
  },
]
