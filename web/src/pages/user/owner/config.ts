/** /integrated/owner: plant owners (users holding role alias `owner`), saved with `saveOwner`. */
import { ownerApi, type Owner } from '../../../api/user/admin'
import type { CrudConfig } from '../../../components/crud/types'
import { ownerPasswordOk, phonePattern, usernamePattern } from '../../../utils/validate'

export const ownerConfig: CrudConfig<Owner> = {
  menuCode: 'owner',
  api: ownerApi,
  fields: [
    { name: 'id', label: 'user.account', hideInTable: true, hideInForm: true },
    { name: 'companyName', label: 'user.companyName', search: true },
    {
      name: 'account',
      label: 'user.account',
      required: 'user.accountRequired',
      search: true,
      lockedIn: ['edit'],
      rules: (t) => [{ pattern: usernamePattern, message: t('user.accountFormat') }],
    },
    { name: 'realName', label: 'user.realName', required: 'user.realNameRequired', search: true },
    {
      name: 'phone',
      label: 'user.phone',
      rules: (t) => [{ pattern: phonePattern, message: t('validate.phoneFormat') }],
    },
    {
      // Required when adding; when editing, empty keeps the password (not sent).
      name: 'password',
      label: 'user.password',
      type: 'password',
      modes: ['add', 'edit'],
      hideInTable: true,
      required: 'user.passwordRequired',
      requiredIn: ['add'],
      rules: (t) => [
        {
          validator: (_rule, value: unknown) =>
            typeof value !== 'string' || value === '' || ownerPasswordOk(value)
              ? Promise.resolve()
              : Promise.reject(new Error(t('user.ownerPasswordLength'))),
        },
      ],
    },
    { name: 'avatar', label: 'user.avatar', hideInTable: true },
  ],
  beforeSubmit: (body) => {
    if (body.password === null || body.password === '') {
      const rest = { ...body }
      delete rest.password
      return rest
    }
    return body
  },
}
