import { Alert, Button, Card, Flex, Form, Input, Typography } from 'antd'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router-dom'
import { signIn, type SignInForm } from '../../../api/auth'
import { authKeys, captchaQuery, tenantByDomainQuery } from '../../../api/auth/queries'
import { getHealth } from '../../../api/system/health'
import LanguageSwitch from '../../../components/LanguageSwitch'
import RegisterDialog from '../../../components/RegisterDialog'
import { website } from '../../../config/website'
import { useSessionStore } from '../../../stores/session'
import ServerStatus from './ServerStatus'

const LAST_TENANT = 'pv-last-tenant'

function lastTenant(): string | null {
  try {
    return localStorage.getItem(LAST_TENANT)
  } catch {
    return null
  }
}

function rememberTenant(tenantId: string) {
  try {
    localStorage.setItem(LAST_TENANT, tenantId)
  } catch {
    // Blocked storage: the field opens on the default next time.
  }
}

interface LoginForm {
  tenantId: string
  username: string
  password: string
  code: string
}

/**
 * /login: tenant id (when tenant mode is on and the site address names no tenant), account,
 * password and captcha (click the image for a new one). A failure shows the server's
 * error_description and sets no session.
 */
export default function Login() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const [form] = Form.useForm<LoginForm>()
  const queryClient = useQueryClient()
  // A new captcha each time the form opens, on a click on the image and after a failed attempt;
  // when the last fetch failed the image is empty (no stale captcha to type).
  const captchaState = useQuery({ ...captchaQuery(), enabled: website.captchaMode })
  const captcha = captchaState.isError ? null : (captchaState.data ?? null)
  const refreshCaptcha = () => {
    if (website.captchaMode) void captchaState.refetch()
  }
  const tenantLookup = useQuery({
    ...tenantByDomainQuery(window.location.hostname),
    enabled: website.tenantMode,
  })
  /** undefined while asking the server, null when the address names no tenant. */
  const resolvedTenant: string | null | undefined = !website.tenantMode
    ? website.tenantId
    : tenantLookup.isSuccess
      ? tenantLookup.data
      : tenantLookup.isError
        ? null
        : undefined
  const [error, setError] = useState('')
  const [registering, setRegistering] = useState(false)

  const showTenant = website.tenantMode && resolvedTenant === null

  // The tenant field opens on the tenant this browser signed in to last, else on the demo's
  // while the demo runs (a newcomer met the platform's 000000 there), else the default.
  const health = useQuery({
    queryKey: ['health'],
    queryFn: getHealth,
    retry: false,
    meta: { ownErrorState: true },
  })
  const demoTenant = health.data?.demoTenant
  useEffect(() => {
    if (demoTenant && lastTenant() === null && !form.isFieldTouched('tenantId'))
      form.setFieldValue('tenantId', demoTenant)
  }, [demoTenant, form])

  // The form shows the failure itself (the server's error_description), so it is not toasted.
  const signing = useMutation({
    mutationFn: (form: SignInForm) => signIn(form),
    meta: { ownErrorState: true },
    onMutate: () => setError(''),
    onSuccess: (data, sent) => {
      if (showTenant) rememberTenant(sent.tenantId)
      useSessionStore.getState().signIn(data)
      void navigate('/', { replace: true })
    },
    onError: (failure) => {
      setError(failure instanceof Error && failure.message ? failure.message : t('login.failed'))
      form.setFieldValue('code', '')
      // The captcha answered this attempt: ask for a new one.
      if (website.captchaMode) void queryClient.invalidateQueries({ queryKey: authKeys.captcha })
    },
  })

  const submit = (values: LoginForm) =>
    signing.mutate({
      tenantId: (showTenant ? values.tenantId : resolvedTenant) || website.tenantId,
      username: values.username,
      password: values.password,
      captchaKey: captcha?.key,
      captchaCode: values.code,
    })

  return (
    <Flex
      vertical
      align="center"
      justify="center"
      gap={24}
      style={{
        minHeight: '100vh',
        padding: 16,
        background: 'linear-gradient(135deg, #0b3d91 0%, #1f6fd1 55%, #f5b301 140%)',
      }}
    >
      <Typography.Title level={2} style={{ color: '#fff', margin: 0, textAlign: 'center' }}>
        {t('app.title')}
      </Typography.Title>
      <Card
        style={{ width: '100%', maxWidth: 400 }}
        title={t('login.heading')}
        extra={<LanguageSwitch />}
      >
        {error && (
          <Alert
            data-testid="login-error"
            type="error"
            showIcon
            title={error}
            style={{ marginBottom: 16 }}
          />
        )}
        <Form<LoginForm>
          form={form}
          layout="vertical"
          initialValues={{ tenantId: lastTenant() ?? website.tenantId }}
          onFinish={submit}
          data-testid="login-form"
        >
          {showTenant && (
            <Form.Item
              label={t('login.tenantId')}
              name="tenantId"
              rules={[{ required: true, message: t('login.tenantRequired') }]}
            >
              <Input data-testid="login-tenant" />
            </Form.Item>
          )}
          <Form.Item
            label={t('login.account')}
            name="username"
            rules={[{ required: true, message: t('login.accountRequired') }]}
          >
            <Input autoComplete="username" data-testid="login-account" />
          </Form.Item>
          <Form.Item
            label={t('login.password')}
            name="password"
            rules={[{ required: true, message: t('login.passwordRequired') }]}
          >
            <Input.Password autoComplete="current-password" data-testid="login-password" />
          </Form.Item>
          {website.captchaMode && (
            <Form.Item label={t('login.captcha')} required>
              <Flex gap={8}>
                <Form.Item
                  name="code"
                  noStyle
                  rules={[{ required: true, message: t('login.captchaRequired') }]}
                >
                  <Input data-testid="login-captcha" autoComplete="off" />
                </Form.Item>
                <img
                  src={captcha?.image}
                  alt={t('login.captcha')}
                  title={t('login.captchaRefresh')}
                  data-testid="captcha-image"
                  onClick={refreshCaptcha}
                  style={{
                    width: 96,
                    height: 32,
                    flex: 'none',
                    cursor: 'pointer',
                    borderRadius: 4,
                  }}
                />
              </Flex>
            </Form.Item>
          )}
          <Button
            type="primary"
            block
            htmlType="submit"
            loading={signing.isPending}
            disabled={resolvedTenant === undefined}
            data-testid="login-submit"
          >
            {t('login.submit')}
          </Button>
        </Form>
        <Flex justify="space-between" align="center" style={{ marginTop: 16 }} wrap gap={8}>
          <ServerStatus />
          <Flex gap={12}>
            <Typography.Link onClick={() => setRegistering(true)} data-testid="register-open">
              {t('register.open')}
            </Typography.Link>
            <Link to="/forget">{t('login.forget')}</Link>
          </Flex>
        </Flex>
      </Card>
      <RegisterDialog
        open={registering}
        resolvedTenantId={resolvedTenant ?? null}
        onClose={() => setRegistering(false)}
        onSubmitted={() => setRegistering(false)}
      />
    </Flex>
  )
}
