/** /system/client: OAuth clients (contract "Clients"; the secret is write-only). */
import { clientApi, type Client } from '../../../api/system/client'
import type { CrudConfig } from '../../../components/crud/types'

export const clientConfig: CrudConfig<Client> = {
  menuCode: 'client',
  api: clientApi,
  fields: [
    { name: 'id', label: 'client.clientId', hideInTable: true, hideInForm: true },
    {
      name: 'clientId',
      label: 'client.clientId',
      required: 'client.clientIdRequired',
      search: true,
    },
    {
      // Never answered by the server, so never listed or viewed; required only when adding.
      name: 'clientSecret',
      label: 'client.clientSecret',
      type: 'password',
      modes: ['add', 'edit'],
      hideInTable: true,
      required: 'client.clientSecretRequired',
      requiredIn: ['add'],
    },
    { name: 'scope', label: 'client.scope' },
    {
      name: 'authorizedGrantTypes',
      label: 'client.authorizedGrantTypes',
      type: 'select',
      multiple: true,
      required: 'client.grantTypesRequired',
      options: [
        { value: 'password', label: 'client.grantPassword' },
        { value: 'refresh_token', label: 'client.grantRefresh' },
        { value: 'authorization_code', label: 'client.grantCode' },
        { value: 'captcha', label: 'client.grantCaptcha' },
        { value: 'social', label: 'client.grantSocial' },
      ],
    },
    { name: 'webServerRedirectUri', label: 'client.webServerRedirectUri', hideInTable: true },
    {
      name: 'accessTokenValidity',
      label: 'client.accessTokenValidity',
      type: 'number',
      required: 'client.accessTokenValidityRequired',
    },
    {
      name: 'refreshTokenValidity',
      label: 'client.refreshTokenValidity',
      type: 'number',
      required: 'client.refreshTokenValidityRequired',
    },
  ],
  addDefaults: {
    scope: 'all',
    authorizedGrantTypes: 'refresh_token,password,captcha',
    accessTokenValidity: 3600,
    refreshTokenValidity: 604800,
  },
  // An edit with the secret left empty keeps the stored one: send none.
  beforeSubmit: (body) => {
    if (typeof body.clientSecret === 'string' && body.clientSecret !== '') return body
    const rest = { ...body }
    delete rest.clientSecret
    return rest
  },
}
